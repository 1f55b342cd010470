import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Env, expand, locateOpal } from '../../src/locate';

const env = (executables: string[], pathVar = '/usr/bin:/opt/opal/bin'): Env => ({
  isExecutable: (p) => executables.includes(p),
  pathVar,
  home: '/home/ada',
  platform: 'linux',
});

test('the setting wins over the bundled binary and PATH', () => {
  const e = env(['/work/target/release/opal', '/ext/server/opal', '/usr/bin/opal']);
  assert.deepEqual(locateOpal('/work/target/release/opal', 'opal.server.path', '/ext', e), { path: '/work/target/release/opal', source: 'setting' });
});

test('without a setting the bundled binary is used, then PATH', () => {
  assert.deepEqual(locateOpal('', 'opal.server.path', '/ext', env(['/ext/server/opal', '/usr/bin/opal'])), { path: '/ext/server/opal', source: 'bundled' });
  assert.deepEqual(locateOpal(undefined, 'opal.server.path', '/ext', env(['/opt/opal/bin/opal'])), { path: '/opt/opal/bin/opal', source: 'PATH' });
  assert.deepEqual(locateOpal('   ', 'opal.server.path', '/ext', env(['/usr/bin/opal'])), { path: '/usr/bin/opal', source: 'PATH' });
});

test('a setting that points nowhere is an error naming the setting, not a silent fallback', () => {
  const r = locateOpal('/nope/opal', 'opal.server.path', '/ext', env(['/ext/server/opal']));
  assert.ok('error' in r);
  assert.match(r.error, /opal\.server\.path.*\/nope\/opal/);
  assert.match(r.fix, /cargo build --release/);
});

test('nothing found: the message says how to fix it', () => {
  const r = locateOpal('', 'opal.server.path', '/ext', env([]));
  assert.ok('error' in r);
  assert.match(r.error, /not found/);
  assert.match(r.fix, /cargo install --path cli/);
  assert.match(r.fix, /opal\.server\.path/);
});

test('a bare name in the setting is looked up on PATH', () => {
  assert.deepEqual(locateOpal('opal', 'opal.server.path', '/ext', env(['/opt/opal/bin/opal'])), { path: '/opt/opal/bin/opal', source: 'setting' });
  const r = locateOpal('opal-nightly', 'opal.debugger.path', '/ext', env([]));
  assert.ok('error' in r && r.error.includes('opal.debugger.path'));
});

test('~ and ${workspaceFolder} are expanded', () => {
  const e = env(['/home/ada/bin/opal', '/repo/target/release/opal']);
  assert.equal(expand('~/bin/opal', e, undefined), '/home/ada/bin/opal');
  assert.deepEqual(locateOpal('${workspaceFolder}/target/release/opal', 'opal.server.path', '/ext', e, '/repo'), { path: '/repo/target/release/opal', source: 'setting' });
  const r = locateOpal('${workspaceFolder}/opal', 'opal.server.path', '/ext', e);
  assert.ok('error' in r && r.error.includes('no folder is open'));
});

test('Windows looks for opal.exe with ; separated PATH', () => {
  const e: Env = { isExecutable: (p) => p.endsWith('opal.exe') && p.startsWith('C:'), pathVar: 'C:\\tools', home: 'C:\\Users\\ada', platform: 'win32' };
  const r = locateOpal('', 'opal.server.path', 'C:\\ext', e);
  assert.ok('path' in r && r.path.endsWith('opal.exe'));
});
