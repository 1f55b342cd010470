import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CrashPolicy, crashMessage, statusView, Tail } from '../../src/serverState';

test('every state has its own text; failures get an attention background', () => {
  const states = ['starting', 'ready', 'crashed', 'stopped', 'missing'] as const;
  const texts = states.map((s) => statusView(s, '').text);
  assert.equal(new Set(texts).size, states.length);
  assert.equal(statusView('crashed', '').background, 'statusBarItem.errorBackground');
  assert.equal(statusView('ready', '/x/opal').background, undefined);
  assert.ok(statusView('ready', '/x/opal').tooltip.includes('/x/opal'));
});

test('a crashing server is restarted 3 times within 3 minutes, then given up', () => {
  const p = new CrashPolicy();
  assert.equal(p.onExit(0), true);
  assert.equal(p.onExit(1000), true);
  assert.equal(p.onExit(2000), true);
  assert.equal(p.onExit(3000), false);
  const q = new CrashPolicy();
  for (let i = 0; i < 10; i++) assert.equal(q.onExit(i * 4 * 60 * 1000), true, 'spread-out exits always restart');
});

test('the tail keeps the last lines, skips blank ones', () => {
  const t = new Tail(2);
  for (const l of ['a', '', 'b', 'c']) t.push(l);
  assert.equal(t.text(), 'b\nc');
});

test('the message quotes the server, not a stack trace', () => {
  const m = crashMessage('/x/opal', 'opal: error: cannot read config\nmore', 'start', 0);
  assert.ok(m.includes('did not start') && m.includes('cannot read config'));
  assert.ok(crashMessage('/x/opal', '', 'crash', 4).includes('wrote nothing'));
  assert.ok(crashMessage('/x/opal', 'boom', 'crash', 4).includes('4 times'));
});
