import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coreQuery, corePath, coreText, sourceOf } from '../../src/coreDoc';

test('a core document names its source and round-trips the source URI', () => {
  const src = 'file:///home/ada/my%20examples/city_excursions.opal';
  assert.equal(corePath(src), '/city_excursions.opal.core');
  assert.equal(sourceOf(coreQuery(src)), src);
  assert.equal(corePath('untitled:Untitled-1'), '/untitled:Untitled-1.core');
  assert.equal(corePath('file:///a/b%20c.opal?x=1'), '/b c.opal.core');
});

test('the view starts with a header comment, then the core', () => {
  const t = coreText('file:///a.opal', '1  x := <1>\n   ret x\n');
  assert.ok(t.startsWith('# Desugared core of file:///a.opal'));
  assert.ok(t.endsWith('1  x := <1>\n   ret x\n'));
});
