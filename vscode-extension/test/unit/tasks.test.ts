// The tasks' command lines and the `$opal` problem matcher against `opal check`'s real output
// (captured in test/fixtures/check-output.txt; with OPAL_BIN set, also against a live run).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { isOpalTask, taskArgs, taskName } from '../../src/tasks';

const ext = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ext, 'package.json'), 'utf8'));

test('run uses the world file beside the program when it exists; check never', () => {
  const exists = (p: string) => p === '/ws/city.world.toml';
  assert.deepEqual(taskArgs({ type: 'opal', command: 'run', file: '/ws/city.opal' }, exists), ['run', '/ws/city.opal', '--world', '/ws/city.world.toml']);
  assert.deepEqual(taskArgs({ type: 'opal', command: 'run', file: '/ws/sum.opal' }, exists), ['run', '/ws/sum.opal']);
  assert.deepEqual(taskArgs({ type: 'opal', command: 'check', file: '/ws/city.opal' }, exists), ['check', '/ws/city.opal']);
  assert.deepEqual(taskArgs({ type: 'opal', command: 'run', file: '/ws/a.opal', args: ['--strategy', 'cbv'] }, exists), ['run', '/ws/a.opal', '--strategy', 'cbv']);
  assert.equal(taskName({ type: 'opal', command: 'check', file: '/ws/city.opal' }), 'check city.opal');
  assert.ok(isOpalTask({ type: 'opal', command: 'run', file: 'x.opal' }));
  assert.ok(!isOpalTask({ type: 'opal', command: 'fmt', file: 'x.opal' }));
  assert.ok(!isOpalTask({ type: 'shell', command: 'run', file: 'x.opal' }));
});

function problems(output: string): { file: string; line: number; col: number; severity: string; code: string; message: string }[] {
  const p = pkg.contributes.problemPatterns.find((x: { name: string }) => x.name === 'opal');
  const re = new RegExp(p.regexp);
  const out = [];
  for (const l of output.split('\n')) {
    const m = re.exec(l);
    if (m) out.push({ file: m[p.file], line: Number(m[p.line]), col: Number(m[p.column]), severity: m[p.severity], code: m[p.code], message: m[p.message] });
  }
  return out;
}

test('the $opal problem matcher reads opal check output', () => {
  const found = problems(fs.readFileSync(path.join(ext, 'test/fixtures/check-output.txt'), 'utf8'));
  assert.deepEqual(found.map((f) => `${f.line}:${f.col} ${f.severity} ${f.code}`), ['2:1 warning W0001', '3:17 error E0100', '4:1 warning W0001', '1:8 warning W0003']);
  assert.equal(found[1].message, 'unbound name `cities`');
  assert.equal(found[1].file, 'typo.opal');
  assert.equal(pkg.contributes.problemMatchers[0].pattern, '$opal');
});

test('the $opal problem matcher reads a live opal check (OPAL_BIN)', { skip: process.env.OPAL_BIN ? false : 'set OPAL_BIN to run it' }, () => {
  const r = spawnSync(process.env.OPAL_BIN as string, ['check', path.join(ext, 'test/fixtures/typo.opal')], { encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  const found = problems(r.stdout + r.stderr);
  assert.ok(found.some((f) => f.code === 'E0100' && f.severity === 'error' && f.line === 3 && f.file.endsWith('typo.opal')), JSON.stringify(found));
});
