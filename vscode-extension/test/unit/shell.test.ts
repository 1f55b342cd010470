import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandLine, quotePosix, runArgs, worldFile } from '../../src/shell';

test('plain arguments are left alone, others are single-quoted', () => {
  assert.equal(quotePosix('/home/ada/examples/sum.opal'), '/home/ada/examples/sum.opal');
  assert.equal(quotePosix('my file.opal'), "'my file.opal'");
  assert.equal(quotePosix("it's.opal"), "'it'\\''s.opal'");
  assert.equal(quotePosix('$(rm -rf ~).opal'), "'$(rm -rf ~).opal'");
  assert.equal(quotePosix(''), "''");
});

test('Run File passes the world file beside the program when it exists', () => {
  const has = (p: string) => p === '/ex/city.world.toml';
  assert.deepEqual(runArgs('/bin/opal', '/ex/city.opal', has), ['/bin/opal', 'run', '/ex/city.opal', '--world', '/ex/city.world.toml']);
  assert.deepEqual(runArgs('/bin/opal', '/ex/sum.opal', has), ['/bin/opal', 'run', '/ex/sum.opal']);
  assert.equal(worldFile('/ex/notes.txt'), undefined);
});

test('command lines quote for the platform shell', () => {
  assert.equal(commandLine(['/bin/opal', 'run', '/a b/c.opal'], 'linux'), "/bin/opal run '/a b/c.opal'");
  assert.equal(commandLine(['C:\\Program Files\\opal.exe', 'run', "x'y.opal"], 'win32'), "& 'C:\\Program Files\\opal.exe' run 'x''y.opal'");
});
