// A second, independent DAP client against the real `opal dap` (issue 18): the DebugClient of
// `@vscode/debugadapter-testsupport` (the library VS Code's own debug adapters are tested with)
// launches the adapter, sets a breakpoint in CityExcursions, continues to it, checks the stack
// and the variables, fetches the task graph, runs to the end and disconnects.
// usage: node dap_client.js OPAL PROGRAM.opal      (NODE_PATH must find the npm package)
'use strict';
const assert = require('node:assert/strict');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const [opal, program] = process.argv.slice(2);
const say = (m) => console.log(`dap client: ${m}`);

(async () => {
  // DebugClient spawns `RUNTIME EXECUTABLE`: here `opal dap`.
  const dc = new DebugClient(opal, 'dap', 'opal', { stdio: ['pipe', 'pipe', 'pipe'] });
  dc.defaultTimeout = 30000;
  await dc.start();
  const output = [];
  let disconnected = false;
  dc.on('output', (e) => {
    if (e.body.category === 'stdout') output.push(e.body.output);
  });
  try {
    const init = await dc.initializeRequest({ adapterID: 'opal', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    assert.equal(init.body.supportsStepBack, true, 'the adapter advertises step back');

    // A launch that cannot start is an error response, not a crash.
    await assert.rejects(dc.launchRequest({ program: `${program}.missing` }), /cannot read/);

    // Breakpoint on line 8 (`excursions := get_excursions_in city`), then continue to it.
    const stopped = dc.waitForEvent('stopped');
    await Promise.all([
      dc.waitForEvent('initialized').then(async () => {
        const bps = await dc.setBreakpointsRequest({ source: { path: program }, breakpoints: [{ line: 8 }] });
        assert.equal(bps.body.breakpoints[0].verified, true, JSON.stringify(bps.body));
        assert.equal(bps.body.breakpoints[0].line, 8);
        say(`breakpoint verified at line ${bps.body.breakpoints[0].line}`);
        return dc.configurationDoneRequest();
      }),
      dc.launch({ program }),
    ]);
    const stop = await stopped;
    assert.equal(stop.body.reason, 'breakpoint', JSON.stringify(stop.body));
    say(`stopped: ${stop.body.reason}`);

    const trace = await dc.stackTraceRequest({ threadId: stop.body.threadId ?? 1 });
    const frames = trace.body.stackFrames;
    assert.equal(frames[0].line, 8, JSON.stringify(frames));
    assert.ok(frames[0].source.path.endsWith('city_excursions.opal'));
    assert.equal(frames[0].name, 'excursions := get_excursions_in city', JSON.stringify(frames));
    assert.ok(frames.length >= 2 && frames[1].name.startsWith('for city in'), `the loop is the caller: ${JSON.stringify(frames.map((f) => f.name))}`);
    say(`stack: ${frames.map((f) => `${f.name} (line ${f.line})`).join(' < ')}`);

    const scopes = await dc.scopesRequest({ frameId: frames[0].id });
    const names = scopes.body.scopes.map((s) => s.name);
    assert.deepEqual(names, ['Locals', 'Statement (core)', 'Labeled term', 'Pending tasks', 'Output']);
    const locals = await dc.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
    const city = locals.body.variables.find((v) => v.name === 'city');
    assert.ok(city && city.value === '"Honolulu"', `city in Locals: ${JSON.stringify(locals.body.variables)}`);
    const hover = await dc.evaluateRequest({ expression: 'city', context: 'hover', frameId: frames[0].id });
    assert.equal(hover.body.result, '"Honolulu"', JSON.stringify(hover.body));
    say(`Locals: ${locals.body.variables.map((v) => `${v.name} = ${v.value}`).join(', ')}; hover city = ${hover.body.result}`);
    const stmt = await dc.variablesRequest({ variablesReference: scopes.body.scopes[1].variablesReference });
    const stmtText = JSON.stringify(stmt.body.variables);
    assert.ok(stmtText.includes('get_excursions_in'), stmtText);
    const term = await dc.variablesRequest({ variablesReference: scopes.body.scopes[2].variablesReference });
    const values = term.body.variables.map((v) => v.value);
    assert.ok(values.some((v) => v.includes('"Honolulu"') || v.includes('<<get_cities_in')), `values read back: ${JSON.stringify(values.slice(0, 6))}`);
    say(`variables: ${stmt.body.variables.length} in Statement, ${term.body.variables.length} in Labeled term`);

    const graph = await dc.customRequest('opal/taskGraph', { mode: 'calls' });
    assert.ok(Array.isArray(graph.body.nodes) && graph.body.nodes.length > 0, JSON.stringify(graph.body));
    say(`task graph: ${graph.body.nodes.length} nodes, ${graph.body.edges.length} edges`);

    // Clear the breakpoint and run to the end: the program's own output, exit code 0.
    await dc.setBreakpointsRequest({ source: { path: program }, breakpoints: [] });
    const exited = dc.waitForEvent('exited');
    const terminated = dc.waitForEvent('terminated');
    await dc.continueRequest({ threadId: 1 });
    assert.equal((await exited).body.exitCode, 0);
    await terminated;
    const out = output.join('');
    assert.ok(out.includes('Honolulu\n') && out.includes('Walk around.\n'), JSON.stringify(out));
    say(`ran to the end, exit code 0, output ${JSON.stringify(out.slice(0, 60))}…`);
    const adapter = dc._adapterProcess; // the spawned `opal dap`
    const gone = new Promise((resolve) => adapter.once('exit', (code) => resolve(code)));
    await dc.disconnectRequest({});
    disconnected = true;
    const code = await Promise.race([gone, new Promise((r) => setTimeout(() => r('still running'), 10000))]);
    assert.equal(code, 0, `opal dap after disconnect: ${code}`);
    say('disconnected, the adapter exited with 0');
    say('ok');
  } catch (e) {
    console.error(`dap client: FAILED: ${e && e.stack ? e.stack : e}`);
    process.exitCode = 1;
  } finally {
    if (!disconnected) await dc.stop().catch(() => {});
  }
})();
