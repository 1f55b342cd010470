import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLaunch, fillLaunch, importsOpal, initialConfiguration } from '../../src/debugConfig';

test('F5 with no launch.json debugs the active .opal file', () => {
  const r = fillLaunch({}, { language: 'opal' });
  assert.ok('config' in r);
  assert.equal(r.config.type, 'opal');
  assert.equal(r.config.request, 'launch');
  assert.equal(r.config.program, '${file}');
});

test('F5 with no launch.json elsewhere says what to do', () => {
  const c = fillLaunch({}, { language: 'markdown' });
  assert.ok('error' in c && c.error.includes('.opal'));
});

test('a configuration without program uses the active file; attach is refused', () => {
  const c = fillLaunch({ type: 'opal', request: 'launch', name: 'x', stopOnEntry: true }, { language: 'opal' });
  assert.ok('config' in c && c.config.program === '${file}' && c.config.stopOnEntry === true);
  const a = fillLaunch({ type: 'opal', request: 'attach', name: 'x' }, { language: 'opal' });
  assert.ok('error' in a && a.error.includes('launch'));
  const none = fillLaunch({ type: 'opal', request: 'launch', name: 'x' }, { language: 'json' });
  assert.ok('error' in none);
});

test('a Python script that imports opal is debugged with OPAL, another is not', () => {
  assert.ok(importsOpal('import asyncio\nfrom opal import unordered\n'));
  assert.ok(importsOpal('import opal\n'));
  assert.ok(!importsOpal('# from opal import unordered\nimport opalescent\n'));
  const r = fillLaunch({}, { language: 'python', importsOpal: true });
  assert.ok('config' in r && r.config.program === '${file}' && (r.config.name ?? '').includes('Python'));
  const plain = fillLaunch({}, { language: 'python', importsOpal: false });
  assert.ok('error' in plain && plain.error.includes('imports opal'));
  const exists = (p: string) => p.startsWith('/ws/');
  assert.equal(checkLaunch({ program: '/ws/agent.py' }, exists), undefined);
});

test('checks after substitution', () => {
  const exists = (p: string) => p.startsWith('/ws/');
  assert.equal(checkLaunch({ program: '/ws/a.opal' }, exists), undefined);
  assert.match(checkLaunch({ program: '/ws/README.md' }, exists) ?? '', /neither an \.opal file nor a Python script/);
  assert.match(checkLaunch({ program: '/gone/a.opal' }, exists) ?? '', /does not exist/);
  assert.match(checkLaunch({ program: '/ws/a.opal', strategy: 'eager' }, exists) ?? '', /opportunistic, cbv, lazy/);
  assert.match(checkLaunch({ program: '/ws/a.opal', world: '/gone/w.toml' }, exists) ?? '', /"world"/);
  assert.match(checkLaunch({ program: '/ws/a.opal', maxSteps: 0 }, exists) ?? '', /maxSteps/);
  assert.equal(checkLaunch({ program: '/ws/a.opal', strategy: 'cbv', maxSteps: 10 }, exists), undefined);
});

test('the initial configuration is the one package.json declares', async () => {
  const pkg = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '../../package.json'), 'utf8'));
  assert.deepEqual(pkg.contributes.debuggers[0].initialConfigurations[0], initialConfiguration());
});
