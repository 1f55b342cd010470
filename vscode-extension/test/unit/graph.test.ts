import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clip, escapeXml, GraphNode, isTaskGraph, layout, renderPage, renderSvg, STYLE, TaskGraph } from '../../src/graph';

const node = (i: number, over: Partial<GraphNode> = {}): GraphNode => ({ id: `n${i}`, label: `${i}`, title: `get_excursions_in "c${i}"`, detail: 'pending', kind: 'pending', state: 'pending', members: 1, line: 8, ...over });

// The shape `opal dap` answered at a breakpoint in city_excursions.opal (tests/editor/dap_client.js).
const city: TaskGraph = {
  nodes: [node(2, { title: 'get_cities_in "Oceania"', state: 'streaming', line: 6 }), node(5, { title: 'get_excursions_in "Honolulu"', state: 'ready' })],
  edges: [[0, 1]],
  standing: '3 steppable',
};

test('layers follow the edges; nodes of one layer sit side by side', () => {
  const g: TaskGraph = { nodes: [node(0), node(1), node(2), node(3)], edges: [[0, 1], [0, 2], [1, 3], [2, 3]], standing: '' };
  const p = layout(g);
  assert.deepEqual(p.map((x) => x.layer), [0, 1, 1, 2]);
  assert.equal(p[1].y, p[2].y);
  assert.notEqual(p[1].x, p[2].x);
  assert.ok(p[3].y > p[1].y && p[1].y > p[0].y);
});

test('bad edges and cycles do not hang or throw', () => {
  const g: TaskGraph = { nodes: [node(0), node(1)], edges: [[0, 1], [1, 0], [0, 7], [-1, 0], [1, 1]], standing: '' };
  const p = layout(g);
  assert.equal(p.length, 2);
  assert.ok(renderSvg(g).includes('<svg'));
});

test('the SVG has one group per node, one path per edge, states as classes, text escaped', () => {
  const svg = renderSvg(city, 8);
  assert.equal((svg.match(/<g class="node/g) ?? []).length, 2);
  assert.equal((svg.match(/class="edge"/g) ?? []).length, 1);
  assert.ok(svg.includes('state-streaming') && svg.includes('state-ready'));
  assert.ok(svg.includes('get_cities_in &quot;Oceania&quot;'));
  assert.ok(svg.includes('node state-ready focus'), 'the node on the stopped line is marked');
  assert.ok(!svg.includes('"Oceania"'), 'quotes are escaped');
  const evil = renderSvg({ nodes: [node(0, { title: '</text><script>alert(1)</script>' })], edges: [], standing: '' });
  assert.ok(!evil.includes('<script>'));
});

test('an empty graph says what to do', () => {
  assert.ok(renderSvg({ nodes: [], edges: [], standing: '' }).includes('No external calls yet'));
});

test('colours are theme variables (light, dark and high contrast read the same page)', () => {
  const colours = STYLE.match(/(fill|stroke|color|background|--c):\s*[^;]+/g) ?? [];
  assert.ok(colours.length > 10);
  for (const c of colours) assert.ok(c.includes('var(--') || /:\s*(none|transparent)$/.test(c), `not a theme variable: ${c}`);
});

test('the page has a strict CSP with the nonce on its one script', () => {
  const page = renderPage(city, { nonce: 'abc123', cspSource: 'vscode-webview:', mode: 'calls', note: '2 nodes' });
  assert.ok(page.includes("script-src 'nonce-abc123'"));
  assert.equal((page.match(/<script/g) ?? []).length, 1);
  assert.ok(page.includes('<script nonce="abc123">'));
  assert.ok(page.includes('2 nodes · 3 steppable'));
  assert.ok(renderPage(undefined, { nonce: 'n', cspSource: 's', mode: 'calls' }).includes('Start debugging'));
});

test('isTaskGraph accepts the adapter shape only', () => {
  assert.ok(isTaskGraph(city));
  assert.ok(!isTaskGraph({ nodes: 'x', edges: [] }));
  assert.ok(!isTaskGraph(null));
  assert.ok(!isTaskGraph({ nodes: [{ label: 'no id' }], edges: [] }));
});

test('helpers', () => {
  assert.equal(escapeXml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  assert.equal(clip('abcdef', 4), 'abc…');
  assert.equal(clip('a\n  b', 10), 'a b');
});
