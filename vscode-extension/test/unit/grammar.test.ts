// Every valid OPAL program in the repository tokenizes without `invalid.*` scopes, and keywords
// are never coloured as names. Complements the assertion fixtures in test/grammar/. The programs
// are copies in test/programs/ (test/sync-programs.sh; ci.sh refreshes stale ones), so the
// test reads nothing outside the extension folder.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';

// Bundled to dist/test/: the extension folder is two levels up.
const ext = path.resolve(__dirname, '../..');
const programs = path.join(ext, 'test', 'programs');

/** A small stand-in for a TOML extension's grammar: keys and single-quoted literal strings. */
const tomlStandIn = {
  scopeName: 'source.toml',
  patterns: [
    { match: "^\\s*([A-Za-z_.]+)\\s*(=)", captures: { 1: { name: 'support.type.property-name.toml' } } },
    { match: "'[^']*'", name: 'string.quoted.single.literal.toml' },
    { match: '"[^"]*"', name: 'string.quoted.double.basic.toml' },
  ],
};

async function grammar(scopeName = 'source.opal'): Promise<textmate.IGrammar> {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (s) => new oniguruma.OnigScanner(s), createOnigString: (s) => new oniguruma.OnigString(s) }),
    loadGrammar: async (scope) => {
      const files: Record<string, string> = { 'source.opal': 'opal.tmLanguage.json', 'opal.world-toml.injection': 'opal-world.injection.json' };
      if (scope === 'source.toml') return textmate.parseRawGrammar(JSON.stringify(tomlStandIn), 'toml.json');
      if (!files[scope]) return null;
      const file = path.join(ext, 'syntaxes', files[scope]);
      return textmate.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
    getInjections: (scope) => (scope === 'source.toml' ? ['opal.world-toml.injection'] : undefined),
  });
  const g = await registry.loadGrammar(scopeName);
  if (!g) throw new Error(`${scopeName} did not load`);
  return g;
}

function tokens(g: textmate.IGrammar, text: string): { line: number; text: string; scopes: string[] }[] {
  const out = [];
  let state = textmate.INITIAL;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const r = g.tokenizeLine(lines[i], state);
    for (const t of r.tokens) out.push({ line: i + 1, text: lines[i].slice(t.startIndex, t.endIndex), scopes: t.scopes });
    state = r.ruleStack;
  }
  return out;
}

const validPrograms = (): string[] =>
  fs
    .readdirSync(programs)
    .filter((f) => f.endsWith('.opal'))
    .map((f) => path.join(programs, f));

test('valid programs have no invalid tokens', async () => {
  const g = await grammar();
  const files = validPrograms();
  assert.ok(files.some((f) => f.endsWith('prelude.opal')) && files.length >= 10, `found only ${files.length} programs`);
  for (const f of files) {
    const bad = tokens(g, fs.readFileSync(f, 'utf8')).filter((t) => t.scopes.some((s) => s.startsWith('invalid')));
    assert.deepEqual(bad, [], path.basename(f));
  }
});

test('the broken fixture does show its mistakes', async () => {
  const g = await grammar();
  const t = tokens(g, 'x = 1\nbreak\n');
  assert.ok(t.some((x) => x.text === '=' && x.scopes.includes('invalid.illegal.assignment.opal')));
  assert.ok(t.some((x) => x.text === 'break' && x.scopes.includes('invalid.illegal.keyword.opal')));
});

test('keywords are never coloured as calls or variables', async () => {
  const g = await grammar();
  const kws = ['fun', 'ret', 'prj', 'rec', 'for', 'in', 'if', 'elif', 'else', 'while', 'do', 'extern', 'and', 'or', 'not'];
  for (const f of validPrograms()) {
    for (const t of tokens(g, fs.readFileSync(f, 'utf8'))) {
      if (kws.includes(t.text) && !t.scopes.some((s) => s.startsWith('comment') || s.startsWith('string'))) {
        assert.ok(!t.scopes.some((s) => s.startsWith('variable') || s.startsWith('entity.name.function')), `${path.basename(f)}:${t.line} ${t.text} ${t.scopes.join(' ')}`);
      }
    }
  }
});

test('world files: OPAL inside arg, result and default values is highlighted as OPAL', async () => {
  const g = await grammar('source.toml');
  const text = fs.readFileSync(path.join(programs, 'city_excursions.world.toml'), 'utf8');
  const t = tokens(g, text);
  const embedded = t.filter((x) => x.scopes.includes('meta.embedded.opal'));
  assert.ok(embedded.some((x) => x.text === 'Oceania' && x.scopes.includes('string.quoted.double.opal')), JSON.stringify(embedded.slice(0, 5)));
  // Other keys stay TOML.
  const latency = t.find((x) => x.text.startsWith('latency_ms'));
  assert.ok(latency && !latency.scopes.includes('meta.embedded.opal'));
});
