// package.json against what the server sends and what the marketplaces need.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const ext = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ext, 'package.json'), 'utf8'));
const STANDARD = ['namespace', 'type', 'class', 'enum', 'interface', 'struct', 'typeParameter', 'parameter', 'variable', 'property', 'enumMember', 'event', 'function', 'method', 'macro', 'keyword', 'modifier', 'comment', 'string', 'number', 'regexp', 'operator', 'decorator'];

/** The semantic token legend `opal lsp` announces in its initialize result. */
function serverLegend(bin: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    const timer = setTimeout(() => {
      p.kill();
      reject(new Error('no initialize result within 20 s'));
    }, 20000);
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      const i = buf.indexOf('\r\n\r\n');
      if (i < 0) return;
      const len = Number(/Content-Length: (\d+)/.exec(buf)?.[1]);
      const body = buf.slice(i + 4);
      if (Buffer.byteLength(body) < len) return;
      clearTimeout(timer);
      p.kill();
      resolve(JSON.parse(body).result.capabilities.semanticTokensProvider.legend.tokenTypes);
    });
    const msg = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
    p.stdin.write(`Content-Length: ${Buffer.byteLength(msg)}\r\n\r\n${msg}`);
  });
}

test('every token type the server sends is declared and has scopes (OPAL_BIN)', { skip: process.env.OPAL_BIN ? false : 'set OPAL_BIN to run it' }, async () => {
  const legend = await serverLegend(process.env.OPAL_BIN as string);
  assert.ok(legend.includes('external') && legend.includes('prelude'), JSON.stringify(legend));
  const declared = pkg.contributes.semanticTokenTypes.map((t: { id: string }) => t.id);
  const scopes = Object.keys(pkg.contributes.semanticTokenScopes[0].scopes);
  for (const t of legend) {
    assert.ok(STANDARD.includes(t) || declared.includes(t), `token type ${t} is not declared in semanticTokenTypes`);
    assert.ok(scopes.includes(t), `token type ${t} has no semanticTokenScopes entry`);
  }
});

test('custom token types have a supertype so themes without OPAL rules colour them', () => {
  for (const t of pkg.contributes.semanticTokenTypes) assert.ok(STANDARD.includes(t.superType), JSON.stringify(t));
});

test('a marketplace-ready manifest (vsce and ovsx)', () => {
  for (const k of ['name', 'displayName', 'description', 'version', 'publisher', 'license', 'icon', 'engines']) assert.ok(pkg[k], `missing ${k}`);
  assert.equal(pkg.repository.directory, 'vscode-extension');
  assert.ok(pkg.bugs.url && pkg.homepage);
  const icon = fs.readFileSync(path.join(ext, pkg.icon));
  assert.equal(icon.subarray(1, 4).toString('latin1'), 'PNG');
  assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128]);
  for (const f of ['LICENSE', 'CHANGELOG.md', 'README.md']) assert.ok(fs.existsSync(path.join(ext, f)), f);
  for (const w of pkg.contributes.walkthroughs[0].steps) assert.ok(fs.existsSync(path.join(ext, w.media.markdown)), w.media.markdown);
});

test('the debugger contribution: type opal, breakpoints for opal and Python scripts, snippets', () => {
  const d = pkg.contributes.debuggers[0];
  assert.equal(d.type, 'opal');
  assert.deepEqual(d.languages, ['opal', 'python']);
  assert.deepEqual(pkg.contributes.breakpoints, [{ language: 'opal' }, { language: 'python' }]);
  assert.ok(d.configurationSnippets.length >= 3);
  const props = Object.keys(d.configurationAttributes.launch.properties).sort();
  assert.deepEqual(props, ['allowExec', 'maxSteps', 'program', 'replay', 'stopOnEntry', 'strategy', 'world']);
});

test('the README images and links resolve inside the extension folder', () => {
  const readme = fs.readFileSync(path.join(ext, 'README.md'), 'utf8');
  for (const m of readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) assert.ok(fs.existsSync(path.join(ext, m[1])), `image ${m[1]}`);
});
