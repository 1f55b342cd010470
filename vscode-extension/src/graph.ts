// The task graph webview's drawing: the answer of the adapter's `opal/taskGraph` request laid
// out in layers and drawn as SVG whose colours are VS Code theme variables, so it reads in light,
// dark and high-contrast themes. Free of `vscode` so the unit tests can run it.

export interface GraphNode {
  id: string;
  label: string;
  title: string;
  detail: string;
  /** steppable | value | waiting | pending | stuck */
  kind: string;
  /** for external calls: queued | ready | pending | streaming | arrived | failed */
  state: string | null;
  members: number;
  line: number | null;
}

export interface TaskGraph {
  nodes: GraphNode[];
  edges: [number, number][];
  /** Edges that only order two calls (the sequencing token): drawn dashed. */
  ordering?: [number, number][];
  standing: string;
}

export interface Placed {
  node: GraphNode;
  x: number;
  y: number;
  layer: number;
}

export const BOX = { w: 240, h: 52, gapX: 28, gapY: 44, margin: 16 };

/** Whether `v` has the shape `opal/taskGraph` answers (an adapter from another version may not). */
export function isTaskGraph(v: unknown): v is TaskGraph {
  if (typeof v !== 'object' || v === null) return false;
  const g = v as Record<string, unknown>;
  return Array.isArray(g.nodes) && Array.isArray(g.edges) && g.nodes.every((n) => typeof n === 'object' && n !== null && typeof (n as GraphNode).id === 'string');
}

/** The state a node is drawn in: the call's state when it is a call, else the statement's kind. */
export function drawnState(n: GraphNode): string {
  return n.state ?? n.kind;
}

/**
 * Layers by longest path from the sources (an edge goes from an earlier layer to a later one;
 * a cycle, which the adapter never sends, is cut), nodes in a layer in the adapter's order.
 */
export function layout(g: TaskGraph): Placed[] {
  const n = g.nodes.length;
  const edges = g.edges.filter(([a, b]) => Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0 && a < n && b < n && a !== b);
  const layer = new Array<number>(n).fill(0);
  // Bellman-Ford style relaxation bounded by n rounds: terminates on any input.
  for (let round = 0; round < n; round++) {
    let changed = false;
    for (const [a, b] of edges) {
      if (layer[b] < layer[a] + 1 && layer[a] + 1 < n) {
        layer[b] = layer[a] + 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  const columns = new Map<number, number>();
  return g.nodes.map((node, i) => {
    const col = columns.get(layer[i]) ?? 0;
    columns.set(layer[i], col + 1);
    return { node, layer: layer[i], x: BOX.margin + col * (BOX.w + BOX.gapX), y: BOX.margin + layer[i] * (BOX.h + BOX.gapY) };
  });
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** `s` cut to `max` characters with an ellipsis. */
export function clip(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The SVG of the graph; `focusLine` marks the nodes written on the line the debugger stopped at. */
export function renderSvg(g: TaskGraph, focusLine?: number): string {
  if (g.nodes.length === 0) {
    return `<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="420" height="60" role="img" aria-label="empty task graph"><text class="empty" x="16" y="34">No external calls yet: step on to see tasks appear.</text></svg>`;
  }
  const placed = layout(g);
  const width = Math.max(...placed.map((p) => p.x + BOX.w)) + BOX.margin;
  const height = Math.max(...placed.map((p) => p.y + BOX.h)) + BOX.margin;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="task graph with ${g.nodes.length} nodes">`);
  out.push('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead"/></marker></defs>');
  for (const [a, b] of g.edges) {
    const from = placed[a];
    const to = placed[b];
    if (!from || !to || a === b) continue;
    const x1 = from.x + BOX.w / 2;
    const y1 = from.y + BOX.h;
    const x2 = to.x + BOX.w / 2;
    const y2 = to.y;
    const my = (y1 + y2) / 2;
    const order = (g.ordering ?? []).some(([p, q]) => p === a && q === b) ? ' order' : '';
    out.push(`<path class="edge${order}" d="M ${x1} ${y1} C ${x1} ${my}, ${x2} ${my}, ${x2} ${y2 - 2}" marker-end="url(#arrow)"/>`);
  }
  for (const p of placed) {
    const n = p.node;
    const state = drawnState(n).replace(/[^a-z]/g, '');
    const focus = focusLine !== undefined && n.line === focusLine ? ' focus' : '';
    const count = n.members > 1 ? ` ×${n.members}` : '';
    const where = n.line !== null ? ` · line ${n.line}` : '';
    out.push(
      `<g class="node state-${state}${focus}" data-id="${escapeXml(n.id)}" data-line="${n.line ?? ''}" tabindex="0">` +
        `<title>${escapeXml(`${n.label}: ${n.title}\n${n.detail}`)}</title>` +
        `<rect x="${p.x}" y="${p.y}" width="${BOX.w}" height="${BOX.h}" rx="6"/>` +
        `<rect class="bar" x="${p.x}" y="${p.y}" width="6" height="${BOX.h}" rx="3"/>` +
        `<text class="title" x="${p.x + 14}" y="${p.y + 21}">${escapeXml(clip(n.title, 30))}</text>` +
        `<text class="meta" x="${p.x + 14}" y="${p.y + 40}">${escapeXml(clip(`${n.label} · ${drawnState(n)}${count}${where}`, 36))}</text>` +
        '</g>',
    );
  }
  out.push('</svg>');
  return out.join('\n');
}

/** The states in the legend, with what they mean. */
export const LEGEND: [string, string][] = [
  ['queued', 'waits for its argument'],
  ['ready', 'dispatched by the next step'],
  ['pending', 'dispatched, no result yet'],
  ['streaming', 'some chunks arrived'],
  ['arrived', 'resolved by the next step'],
  ['failed', 'the call failed'],
];

/** The stylesheet: every colour is a theme variable, with a fallback for the unit tests. */
export const STYLE = `
body { background: var(--vscode-editor-background); color: var(--vscode-editor-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); margin: 0; padding: 8px 12px; }
header { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
header .standing { color: var(--vscode-descriptionForeground); }
button { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); border: 1px solid var(--vscode-contrastBorder, transparent); padding: 2px 10px; cursor: pointer; }
button.on { background: var(--vscode-button-background); color: var(--vscode-button-foreground); }
.legend { display: flex; gap: 12px; flex-wrap: wrap; color: var(--vscode-descriptionForeground); margin: 6px 0 10px; }
.legend span::before { content: ''; display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; background: var(--c); }
svg.graph text { font-family: var(--vscode-editor-font-family, monospace); }
svg.graph .empty { fill: var(--vscode-descriptionForeground); font-size: 13px; }
svg.graph .edge { fill: none; stroke: var(--vscode-editorLineNumber-foreground, #888); stroke-width: 1.5; }
svg.graph .edge.order { stroke-dasharray: 6 4; }
svg.graph .arrowhead { fill: var(--vscode-editorLineNumber-foreground, #888); }
svg.graph .node rect { fill: var(--vscode-editorWidget-background, #f3f3f3); stroke: var(--c); stroke-width: 1.5; }
svg.graph .node rect.bar { fill: var(--c); stroke: none; }
svg.graph .node .title { fill: var(--vscode-editor-foreground); font-size: 13px; }
svg.graph .node .meta { fill: var(--vscode-descriptionForeground); font-size: 11px; }
svg.graph .node.focus rect { stroke-width: 3; }
svg.graph .node { cursor: pointer; }
svg.graph .node:focus rect { stroke: var(--vscode-focusBorder); }
.state-queued, .state-waiting { --c: var(--vscode-charts-foreground, #888); }
.state-ready, .state-steppable { --c: var(--vscode-charts-blue, #1a85ff); }
.state-pending { --c: var(--vscode-charts-yellow, #d18616); }
.state-streaming { --c: var(--vscode-charts-purple, #8e44ad); }
.state-arrived, .state-value { --c: var(--vscode-charts-green, #388a34); }
.state-failed, .state-stuck { --c: var(--vscode-charts-red, #e51400); }
`;

/** The whole webview page. `nonce` allows its one script; `cspSource` is the webview's. */
export function renderPage(g: TaskGraph | undefined, opts: { nonce: string; cspSource: string; mode: string; note?: string; focusLine?: number }): string {
  const csp = `default-src 'none'; img-src ${opts.cspSource} data:; style-src ${opts.cspSource} 'unsafe-inline'; script-src 'nonce-${opts.nonce}';`;
  const legend = LEGEND.map(([s, what]) => `<span class="state-${s}" title="${escapeXml(what)}">${s}</span>`).join('');
  const body = g ? renderSvg(g, opts.focusLine) : '<p class="standing">Start debugging an OPAL file (F5): the task graph appears at every stop.</p>';
  const standing = [opts.note, g?.standing].filter(Boolean).join(' · ');
  const modes = ['calls', 'statements'].map((m) => `<button data-mode="${m}" class="${m === opts.mode ? 'on' : ''}">${m === 'calls' ? 'External calls' : 'Statements'}</button>`).join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0"><title>OPAL task graph</title><style>${STYLE}</style></head>
<body><header>${modes}<span class="standing" id="standing">${escapeXml(standing)}</span></header>
<div class="legend">${legend}</div>
<main id="graph">${body}</main>
<script nonce="${opts.nonce}">
const vscode = acquireVsCodeApi();
for (const b of document.querySelectorAll('button[data-mode]')) b.addEventListener('click', () => vscode.postMessage({ type: 'mode', mode: b.dataset.mode }));
for (const n of document.querySelectorAll('g.node')) {
  const go = () => { if (n.dataset.line) vscode.postMessage({ type: 'reveal', line: Number(n.dataset.line) }); };
  n.addEventListener('click', go);
  n.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
}
</script></body></html>`;
}
