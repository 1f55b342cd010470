// Minimal LSP client over stdio using vscode-languageserver-protocol (Node >= 18).
// usage: node probe.js FILE LINE COL -- SERVER [ARGS...]
//   env ORDER_TEST=N : after the probe, send N single-char incremental didChange
//   notifications back-to-back and compare the server's copy (custom request
//   opal/documentText, our server answers it) with the expected text.
//   env ORDER_WAIT_MS=ms : wait that long before asking for the text.
'use strict';
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const p = require('vscode-languageserver-protocol/node');

const sep = process.argv.indexOf('--');
const [file, line, col] = process.argv.slice(2, sep);
const [cmd, ...args] = process.argv.slice(sep + 1);
const uri = pathToFileURL(path.resolve(file)).href;
const text = fs.readFileSync(file, 'utf8');
const languageId = { '.opal': 'opal' }[path.extname(file)] || 'plaintext';

const child = cp.spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = p.createProtocolConnection(
  new p.StreamMessageReader(child.stdout),
  new p.StreamMessageWriter(child.stdin));

const timeout = (ms, what) => new Promise((_, rej) => setTimeout(() => rej(new Error('timeout: ' + what)), ms));
let diagWaiters = [];
conn.onNotification(p.PublishDiagnosticsNotification.type, (msg) => {
  if (msg.uri !== uri) return;
  diagWaiters.forEach((w) => w(msg)); diagWaiters = [];
});
const nextDiags = () => new Promise((res) => diagWaiters.push(res));
conn.onNotification(p.LogMessageNotification.type, (m) => console.error('[server log]', m.message));
// Answer server->client requests some servers send (pylsp asks for configuration).
conn.onRequest(p.ConfigurationRequest.type, (params) => params.items.map(() => null));
conn.onRequest(p.RegistrationRequest.type, () => null);
conn.listen();

(async () => {
  const init = await Promise.race([conn.sendRequest(p.InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(path.dirname(path.resolve(file))).href,
    capabilities: { general: { positionEncodings: ['utf-16'] },
      textDocument: { publishDiagnostics: { versionSupport: true }, hover: { contentFormat: ['markdown', 'plaintext'] } } },
    workspaceFolders: null,
  }), timeout(15000, 'initialize')]);
  console.log('server:', JSON.stringify(init.serverInfo), 'sync:', JSON.stringify(init.capabilities.textDocumentSync));
  await conn.sendNotification(p.InitializedNotification.type, {});

  const diagsP = nextDiags();
  await conn.sendNotification(p.DidOpenTextDocumentNotification.type,
    { textDocument: { uri, languageId, version: 1, text } });
  const diags = await Promise.race([diagsP, timeout(15000, 'publishDiagnostics')]);
  console.log(`diagnostics (version ${diags.version}): ${diags.diagnostics.length}`);
  for (const d of diags.diagnostics) console.log(`  ${d.range.start.line}:${d.range.start.character} ${d.message}`);

  const pos = { textDocument: { uri }, position: { line: +line, character: +col } };
  const hover = await conn.sendRequest(p.HoverRequest.type, pos);
  const hv = hover && (hover.contents.value !== undefined ? hover.contents.value : JSON.stringify(hover.contents));
  console.log('hover:', JSON.stringify(hv));
  let def = await conn.sendRequest(p.DefinitionRequest.type, pos);
  if (def && !Array.isArray(def)) def = [def];
  if (def && def[0]) {
    const l = def[0]; const r = l.range || l.targetSelectionRange;
    console.log(`definition: ${path.basename(l.uri || l.targetUri)} ${r.start.line}:${r.start.character}`);
  } else console.log('definition:', JSON.stringify(def));

  const n = +(process.env.ORDER_TEST || 0);
  if (n > 0) {
    // Append "abcdefghij..." one char per notification at the end of line 0.
    const line0 = text.split('\n')[0];
    let expected = line0; const col0 = line0.length; // ASCII line: UTF-16 == chars
    for (let v = 0; v < n; v++) {
      const ch = String.fromCharCode(97 + (v % 26));
      const c = col0 + v;
      conn.sendNotification(p.DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: 2 + v },
        contentChanges: [{ range: { start: { line: 0, character: c }, end: { line: 0, character: c } }, text: ch }],
      });
      expected += ch;
    }
    // ORDER_WAIT_MS: pause before asking, so pending didChange handlers can finish.
    if (process.env.ORDER_WAIT_MS) await new Promise((r) => setTimeout(r, +process.env.ORDER_WAIT_MS));
    const got = await conn.sendRequest('opal/documentText', { uri });
    const gotLine0 = got.split('\n')[0];
    console.log(`order test: ${n} didChange sent; server line 0 ${gotLine0 === expected ? 'MATCHES' : 'DIFFERS'}`);
    if (gotLine0 !== expected) console.log('  expected line 0:', expected, '\n  got (first 2 lines):', JSON.stringify(got.split('\n').slice(0, 2)));
    process.exitCode = gotLine0 === expected ? 0 : 2;
  }

  await conn.sendRequest(p.ShutdownRequest.type);
  await conn.sendNotification(p.ExitNotification.type);
  const code = await Promise.race([new Promise((res) => child.on('exit', (c) => res(c))),
    new Promise((res) => setTimeout(() => res('still running after 3s'), 3000))]);
  console.log('server exit:', code);
  if (child.exitCode === null) child.kill(); // never leave it running
  conn.dispose();
})().catch((e) => { console.error('FAIL', e.message); child.kill(); process.exit(1); });
