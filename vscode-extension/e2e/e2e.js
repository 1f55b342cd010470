// Drives a real VS Code (code-server) in headless Chromium with the packaged extension installed
// and checks what a user sees: highlighting, the server's diagnostics, hover, the Run/Debug
// code lenses, debugging with F5 (breakpoint once per iteration, `city` in Variables, hover and
// console, the task graph webview, stepping,
// the Debug Console), Show Desugared Core (and its refresh on edit), a server that fails to start
// (its own stderr and Restart), the status bar item, Restart and the output channel.
// usage: node e2e.js BASE_URL WORKSPACE_DIR SCREENSHOT_DIR PROFILE_DIR USER_DATA_DIR
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');

/** Processes running `opal debug` (found in /proc, so no procps is needed). */
function debuggerPids() {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // Only the extension's own `opal` (other step debuggers may run on a shared machine).
      if (argv.length > 1 && path.basename(argv[0]) === 'opal' && argv[0].startsWith(path.dirname(folder)) && argv[1] === 'debug') out.push(pid);
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

const [base, folder, shots, profile, userData] = process.argv.slice(2);
const t0 = Date.now();
const step = (m) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const checks = [];
const check = (name, ok, detail) => {
  checks.push({ name, ok });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
};

async function palette(page, command) {
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget', { state: 'visible', timeout: 20000 });
  await page.keyboard.type(command, { delay: 15 });
  // Click the row whose label is exactly the command: Enter would take the best fuzzy match,
  // which can be another command ("Tasks: Restart Running Task" for "Tasks: Run Task").
  const exact = new RegExp(`^\\s*${command.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s*$`);
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
  const found = await row.waitFor({ state: 'visible', timeout: 20000 }).then(() => true).catch(() => false);
  await page.waitForTimeout(200);
  if (found) await row.click();
  else await page.keyboard.press('Enter');
}

async function openFile(page, name) {
  // On a loaded machine the quick-open list fills late: wait for the file's row before Enter,
  // and try again if the editor did not open.
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+P');
      await page.waitForSelector('.quick-input-widget', { state: 'visible', timeout: 20000 });
      await page.keyboard.type(name, { delay: 20 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: 30000 });
      await page.waitForTimeout(300);
      await page.keyboard.press('Enter');
      await page.waitForSelector(`.tab.active[aria-label*="${name}"]`, { timeout: 30000 });
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
      console.log(`(opening ${name} again: ${e.message.split('\n')[0]})`);
    }
  }
}

/** The text of the editor whose tab is `name` (visible lines only). */
async function editorText(page, name) {
  const groups = page.locator('.editor-group-container');
  for (let i = 0; i < (await groups.count()); i++) {
    const g = groups.nth(i);
    if ((await g.locator(`.tab.active[aria-label*="${name}"]`).count()) > 0) {
      return (await g.locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    }
  }
  return '';
}


/** The text of the sidebar (Run and Debug: variables, call stack, breakpoints). */
async function sidebarText(page) {
  return (await page.locator('.part.sidebar').innerText()).replace(/\u00a0/g, ' ');
}

/** The task graph webview's frame (webviews are nested iframes), or undefined. */
async function graphFrame(page) {
  for (const f of page.frames()) {
    try {
      if ((await f.locator('svg.graph').count()) > 0) return f;
    } catch {
      // a frame that went away while we looked
    }
  }
  return undefined;
}

/** What the task graph shows: node count, the states drawn, the header line. */
async function graphState(page) {
  const f = await graphFrame(page);
  if (!f) return undefined;
  return {
    nodes: await f.locator('svg.graph g.node').count(),
    edges: await f.locator('svg.graph path.edge').count(),
    states: await f.locator('svg.graph g.node').evaluateAll((gs) => gs.map((g) => g.getAttribute('class'))),
    standing: await f.locator('#standing').innerText(),
    titles: await f.locator('svg.graph g.node .title').evaluateAll((ts) => ts.map((t) => t.textContent)),
    fill: await f.locator('svg.graph g.node rect').first().evaluate((r) => getComputedStyle(r).fill).catch(() => ''),
  };
}

/** The body of the sidebar pane whose header matches `title` (Variables, Breakpoints, …). */
async function paneText(page, title) {
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: title }) }).first();
  return (await pane.locator('.pane-body').innerText().catch(() => '')).replace(/\u00a0/g, ' ');
}

async function debugConsoleText(page) {
  return (await page.locator('.repl').first().innerText()).replace(/\u00a0/g, ' ');
}

async function statusBarIcon(page) {
  // The item's element id is EXTENSION_ID.ITEM_ID; fall back to its text.
  let item = page.locator('.statusbar-item[id$="opal.status"]').first();
  if ((await item.count()) === 0) item = page.locator('.part.statusbar .left-items .statusbar-item', { hasText: /^OPAL$/ }).first();
  return item.locator('.codicon').first().getAttribute('class');
}

/** The OPAL output channel as VS Code writes it to disk (a LogOutputChannel has a log file). */
function outputChannelFile() {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/OPAL\.log$/.test(e.name) || /-OPAL\.log$/.test(e.name)) found.push(p);
    }
  };
  try {
    walk(path.join(userData, 'logs'));
  } catch {
    return '';
  }
  // The newest file is this window's.
  found.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return found[0] ? fs.readFileSync(found[0], 'utf8') : '';
}

async function gotoLine(page, line) {
  await page.keyboard.press('Control+G');
  await page.keyboard.type(String(line), { delay: 20 });
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
}

/** The Call Stack header: VS Code shows the adapter's stop description there. */
async function callStackHeader(page) {
  const h = page.locator('.pane-header', { hasText: /call stack/i }).first();
  return (await h.innerText()).replace(/\s+/g, ' ');
}

/** Waits until the debugger is paused (Continue in the toolbar) with a stop description matching `re`. */
async function pausedWith(page, re, timeout = 60000) {
  return until(`debugger paused (${re})`, async () => {
    const paused = (await page.locator('.debug-toolbar .codicon-debug-continue').count()) > 0;
    const h = await callStackHeader(page);
    seen = `paused=${paused} header=${h}`;
    return paused && re.test(h) ? h : undefined;
  }, timeout);
}

async function notDebugging(page, timeout = 30000) {
  return until('the debug session ended', async () => ((await page.locator('.debug-toolbar').count()) === 0 || !(await page.locator('.debug-toolbar').first().isVisible()) ? true : undefined), timeout);
}

let seen = ''; // what the last poll saw, for the failure message

async function until(what, fn, timeout = 30000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what} (last seen: ${seen.slice(0, 300)})`);
}

(async () => {
  fs.rmSync(profile, { recursive: true, force: true });
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 850 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = browser.pages()[0] || (await browser.newPage());
  page.on('pageerror', (e) => console.log('[pageerror]', e.message.slice(0, 200)));
  try {
    await page.goto(`${base}/?folder=${encodeURIComponent(folder)}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    step('workbench loaded');
    await page.waitForTimeout(3000);

    // 1. Highlighting from the TextMate grammar: keywords, names and comments differ in colour.
    await openFile(page, 'city_excursions.opal');
    const colours = await until('coloured tokens', async () => {
      const c = await page.evaluate(() => {
        const out = {};
        for (const s of document.querySelectorAll('.editor-group-container .view-line span span')) {
          const t = s.textContent.replace(/\u00a0/g, ' ').trim();
          if (['extern', 'for', 'city', 'print'].includes(t) || t.startsWith('# The paper')) out[t.startsWith('#') ? 'comment' : t] = getComputedStyle(s).color;
        }
        return out;
      });
      seen = JSON.stringify(c);
      return Object.keys(c).length >= 5 && new Set(Object.values(c)).size >= 4 ? c : undefined;
    });
    check('highlighting', colours.extern !== colours.city && colours.comment !== colours.city && colours.for !== colours.city, JSON.stringify(colours));

    // 2. Code lenses from the server.
    const lens = await until('code lenses', async () => {
      const t = await page.locator('.codelens-decoration').first().innerText();
      return t.includes('Run') && t.includes('Debug') ? t : undefined;
    }, 60000);
    check('code lenses', true, JSON.stringify(lens));

    // 3. Hover on an external declared by `extern` and supplied by the world file.
    await page.keyboard.press('Control+G');
    await page.keyboard.type('8:22', { delay: 20 });
    await page.keyboard.press('Enter');
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = await page.waitForSelector('.monaco-hover-content', { state: 'visible', timeout: 20000 });
    const hoverText = await hover.innerText();
    check('hover', hoverText.includes('get_excursions_in'), JSON.stringify(hoverText.slice(0, 160)));
    await page.screenshot({ path: `${shots}/vscode-hover.png` });
    await page.keyboard.press('Escape');

    // 4. Show Desugared Core: a read-only document beside the source, from `opal/desugar`.
    await palette(page, 'OPAL: Show Desugared Core');
    const core = await until('desugared core', async () => {
      const t = await editorText(page, 'city_excursions.opal.core');
      return t.includes('Desugared core') && t.includes(':=') ? t : undefined;
    });
    check('show desugared core', /\n1 +\S+ := /.test(core) && core.includes('get_cities_in'), JSON.stringify(core.slice(0, 200)));
    await page.screenshot({ path: `${shots}/vscode-desugared-core.png` });

    // 5. The Debug lens starts the in-editor debugger (`opal dap`), not the native window.
    await page.locator('.editor-group-container').first().locator('.view-lines').first().click();
    await gotoLine(page, 8);
    await page.keyboard.press('F9');
    await until('breakpoint glyph', async () => ((await page.locator('.codicon-debug-breakpoint').count()) > 0 ? true : undefined), 10000);
    await page.locator('.codelens-decoration a', { hasText: 'Debug' }).first().click();
    const lensStop = await pausedWith(page, /breakpoint on line 8/).catch(() => '');
    check('debug lens starts the in-editor debugger', lensStop !== '' && debuggerPids().length === 0, JSON.stringify(lensStop || seen));
    await page.keyboard.press('Shift+F5');
    await notDebugging(page).catch(() => undefined);
    for (const pid of debuggerPids()) process.kill(Number(pid));

    // 5a. No display where code-server runs the extension: the native window is not offered.
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget', { state: 'visible', timeout: 20000 });
    await page.keyboard.type('OPAL: ', { delay: 15 });
    const opalCommands = await until('OPAL commands in the palette', async () => {
      const rows = await page.locator('.quick-input-list .monaco-list-row .label-name').allInnerTexts();
      return rows.some((r) => r.includes('Debug File')) ? rows : undefined;
    }, 20000).catch(() => []);
    await page.keyboard.press('Escape');
    check('palette: Debug File offered, Open in Step Debugger not (no display)', opalCommands.some((r) => r.includes('Debug File')) && !opalCommands.some((r) => r.includes('Open in Step Debugger')), JSON.stringify(opalCommands));

    // 5b. F5 with no launch.json: stops at the breakpoint on line 8, the variables, the task
    // graph beside the editor, stepping, the Debug Console, then runs to the end.
    await page.locator('.editor-group-container').first().locator('.view-lines').first().click();
    await page.keyboard.press('F5');
    const stop = await pausedWith(page, /breakpoint on line 8/).catch(() => '');
    const topLine = await until('current line decoration', async () => ((await page.locator('.debug-top-stack-frame-line').count()) > 0 ? true : undefined), 20000).catch(() => false);
    const status = await page.locator('.statusbar-item[id*="status.editor.selection"]').innerText().catch(() => '');
    check('F5 stops at the breakpoint', stop !== '' && topLine === true && /Ln 8\b/.test(status), `${JSON.stringify(stop || seen)} cursor ${JSON.stringify(status)}`);
    const callStack = await sidebarText(page);
    check('call stack shows the program: the statement, then the loop', callStack.includes('excursions := get_excursions_in city') && callStack.includes('for city in get_cities_in') && callStack.includes('city_excursions.opal'), JSON.stringify(callStack.replace(/\s+/g, ' ').slice(0, 300)));
    const localsShow = async (city) => {
      const vars = await until(`variables: city = ${city}`, async () => {
        let t = await paneText(page, /^\s*variables/i);
        // Expand the Locals scope if VS Code left it closed.
        if (t.includes('Locals') && !t.includes('city')) await page.locator('.pane-body .monaco-list-row', { hasText: 'Locals' }).first().click();
        t = (await paneText(page, /^\s*variables/i)).replace(/\s+/g, ' ');
        seen = t;
        return new RegExp(`city\\W+"${city}"`).test(t) ? t : undefined;
      }, 30000).catch(() => seen);
      return vars;
    };
    const vars = await localsShow('Honolulu');
    check('variables view: city = "Honolulu" in Locals', /city\W+"Honolulu"/.test(vars) && vars.includes('Labeled term') && !/x'1@/.test(vars), JSON.stringify(vars.replace(/\s+/g, ' ').slice(0, 240)));
    // Hovering `city` in the editor during the session shows its value.
    await page.locator('.editor-group-container').first().locator('.view-line').nth(7).locator('span', { hasText: /^city$/ }).last().hover();
    const cityHover = await until('debug hover on city', async () => {
      const t = await page.locator('.debug-hover-widget').first().innerText().catch(() => '');
      seen = t;
      return t.includes('Honolulu') ? t : undefined;
    }, 15000).catch(() => seen);
    check('hover on city shows its value', cityHover.includes('"Honolulu"'), JSON.stringify(cityHover));
    await page.keyboard.press('Escape');
    const graph1 = await until('task graph webview', async () => {
      const g = await graphState(page);
      seen = JSON.stringify(g);
      return g && g.nodes > 0 ? g : undefined;
    }, 60000).catch(() => undefined);
    check('task graph webview', !!graph1 && graph1.nodes >= 2 && graph1.edges >= 1 && graph1.titles.some((t) => t.includes('get_cities_in')) && graph1.states.some((c) => c.includes('focus')) && graph1.fill !== '' && graph1.fill !== 'rgb(0, 0, 0)', JSON.stringify(graph1));
    // The graph opened beside the editor narrow enough that the code keeps 80 columns.
    const columns = await page.evaluate(() => {
      const editor = document.querySelector('.editor-group-container .monaco-editor');
      const area = editor && editor.querySelector('.monaco-scrollable-element.editor-scrollable');
      const line = editor && editor.querySelector('.view-line > span');
      if (!area || !line || !line.textContent) return 0;
      const column = line.getBoundingClientRect().width / line.textContent.length;
      return Math.floor(area.getBoundingClientRect().width / column);
    });
    check('the graph beside the editor keeps 80 columns of code readable', columns >= 80, `${columns} columns`);
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${shots}/vscode-debug.png` });
    // The same graph in a dark theme: the webview follows the theme's variables.
    const lum = (rgb) => {
      const [r, g, b] = (rgb.match(/\d+/g) || ['0', '0', '0']).slice(0, 3).map((v) => Number(v) / 255);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const themeColours = async () => {
      const f = await graphFrame(page);
      if (!f) return undefined;
      return {
        background: await f.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor),
        text: await f.locator('svg.graph g.node .title').first().evaluate((t) => getComputedStyle(t).fill),
      };
    };
    const light = await themeColours();
    await palette(page, 'Preferences: Toggle between Light/Dark Themes');
    const dark = await until('graph in the dark theme', async () => {
      const c = await themeColours();
      seen = JSON.stringify(c);
      return c && lum(c.background) < 0.3 ? c : undefined;
    }, 30000).catch(() => undefined);
    check(
      'task graph readable in light and dark themes',
      !!light && !!dark && lum(light.background) > 0.7 && lum(light.text) < 0.4 && lum(dark.text) > 0.6,
      JSON.stringify({ light, dark }),
    );
    await page.screenshot({ path: `${shots}/vscode-debug-dark.png` });
    await palette(page, 'Preferences: Toggle between Light/Dark Themes');
    await until('light theme again', async () => {
      const c = await themeColours();
      return c && lum(c.background) > 0.7 ? c : undefined;
    }, 30000).catch(() => undefined);
    await page.waitForTimeout(1000);
    // The Debug Console evaluates expressions over the variables in scope, and keeps its
    // commands under a prefix: why the statement at the breakpoint can step.
    await page.keyboard.press('Control+Shift+Y');
    await page.waitForSelector('.repl-input-wrapper', { state: 'visible', timeout: 20000 });
    const ask = async (text, re) => {
      await page.locator('.repl-input-wrapper .monaco-editor').first().click();
      await page.keyboard.type(text, { delay: 20 });
      await page.keyboard.press('Enter');
      return until(`the answer to \`${text}\``, async () => {
        const t = await debugConsoleText(page);
        seen = t;
        return re.test(t) ? t : undefined;
      }, 30000).catch(() => seen);
    };
    const answer = await ask('city', /city\s*"Honolulu"/);
    check('debug console evaluates `city`', /city\s*"Honolulu"/.test(answer), JSON.stringify(answer.replace(/\s+/g, ' ').slice(-200)));
    const why = await ask(':why 5.6.6.6', /why 5\.6\.6\.6[\s\S]*dispatch/);
    check('debug console: `:why`', /why 5\.6\.6\.6[\s\S]*dispatch/.test(why), JSON.stringify(why.replace(/\s+/g, ' ').slice(-200)));
    // Continue: the breakpoint stops again once, in the next iteration, with its city.
    await page.keyboard.press('F5');
    const again = await pausedWith(page, /breakpoint on line 8/, 30000).catch(() => '');
    const vars2 = await localsShow('Jakarta');
    check('breakpoint once per iteration: the next stop has city = "Jakarta"', again !== '' && /city\W+"Jakarta"/.test(vars2), `${JSON.stringify(again)} ${JSON.stringify(vars2.slice(0, 200))}`);
    // Step over: a new stop on the next line of the program, a redrawn graph.
    await page.keyboard.press('F10');
    // A step's stop says `line N` (not `breakpoint on line N`, the stop before it).
    const stepped = await pausedWith(page, /(?<!on )line \d+\s*$/, 30000).catch(() => '');
    const graph2 = await until('graph redrawn after a step', async () => {
      const g = await graphState(page);
      seen = JSON.stringify(g);
      return g && JSON.stringify(g) !== JSON.stringify(graph1) ? g : undefined;
    }, 30000).catch(() => undefined);
    check('step over: stops on a line of the program, graph redrawn', stepped !== '' && !!graph2, `${JSON.stringify(stepped)} ${JSON.stringify(graph2 && { nodes: graph2.nodes, standing: graph2.standing, states: graph2.states })}`);
    // Remove the breakpoint and continue to the end: the rest of the output, the session ends.
    // Remove the breakpoint: go to line 8 (Ctrl+G; clicking a rendered line is unreliable,
    // Monaco's line elements are not in line order) and toggle it with F9.
    const noBreakpoints = async () => !/city_excursions\.opal\s*\d/.test(await paneText(page, /breakpoints/i));
    for (let attempt = 0; attempt < 3 && !(await noBreakpoints()); attempt++) {
      await page.locator('.editor-group-container').first().locator('.view-lines').first().click();
      await page.keyboard.press('Control+G');
      await page.waitForSelector('.quick-input-widget', { state: 'visible', timeout: 20000 });
      await page.keyboard.type('8', { delay: 20 });
      await page.keyboard.press('Enter');
      await page.waitForTimeout(300);
      await page.keyboard.press('F9');
      await page.waitForTimeout(800);
    }
    check('breakpoint removed', await noBreakpoints(), JSON.stringify(await paneText(page, /breakpoints/i)));
    await page.keyboard.press('F5');
    const end = await until('the program ran to the end', async () => {
      const t = await debugConsoleText(page);
      seen = t;
      return t.includes('Walk around.') && t.includes('Suva') ? t : undefined;
    }, 60000).catch(() => seen);
    const ended = await notDebugging(page).catch(() => false);
    check('continue to the end: print output in the Debug Console', end.includes('Honolulu') && end.includes('Suva') && ended === true, JSON.stringify(end.replace(/\s+/g, ' ').slice(-200)));
    await page.screenshot({ path: `${shots}/vscode-debug-console.png` });
    const lastGraph = await graphState(page);
    check('graph keeps the last state after the session', !!lastGraph && /ended/.test(lastGraph.standing), JSON.stringify(lastGraph && lastGraph.standing));
    // Close the graph and the panel so the later checks see the editors as before.
    await palette(page, 'View: Close All Editor Groups');
    await page.waitForTimeout(800);
    await openFile(page, 'city_excursions.opal');
    await palette(page, 'OPAL: Show Desugared Core');
    await until('desugared core again', async () => ((await editorText(page, 'city_excursions.opal.core')).includes(':=') ? true : undefined), 30000).catch(() => undefined);
    await openFile(page, 'city_excursions.opal');

    // 6. The Run lens runs the program with its world file in a terminal.
    await page.locator('.codelens-decoration a', { hasText: 'Run' }).first().click();
    const term = await until('program output in the terminal', async () => {
      const t = await page.locator('.terminal-wrapper .xterm-rows, .xterm-accessibility-tree').first().innerText();
      return t.includes('Honolulu') && t.includes('Walk') ? t : undefined;
    }, 60000).catch((e) => e.message);
    const flat = term.replace(/\s+/g, ' ');
    check('run lens', term.includes('Honolulu'), JSON.stringify(flat.slice(Math.max(0, flat.indexOf('Honolulu')), flat.indexOf('Honolulu') + 160)));
    await page.screenshot({ path: `${shots}/vscode-run.png` });

    // 7. Editing the source refreshes the core view.
    await page.locator('.editor-group-container').first().locator('.view-lines').first().click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('first_value := 42\n', { delay: 10 });
    const refreshed = await until('core view refresh', async () => {
      const t = await editorText(page, 'city_excursions.opal.core');
      return t.includes('first_value') ? t : undefined;
    }).catch(() => '');
    check('core view follows edits', refreshed.includes('first_value := <42>'), JSON.stringify(refreshed.slice(0, 200)));

    // 7b. The language configuration indents after a line that ends with `:`.
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.type('if first_value > 1:', { delay: 10 });
    await page.waitForTimeout(300);
    // Close a completion list if one is open: Enter would accept it instead of breaking the line.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    const col = await until('cursor on the next line', async () => {
      const t = await page.locator('.statusbar-item[id*="status.editor.selection"]').innerText();
      seen = t;
      return /Ln 2, Col \d+/.test(t) ? t : undefined;
    }, 10000).catch(() => seen);
    check('indent after `:`', /Ln 2, Col 5\b/.test(col), JSON.stringify(col));
    for (let i = 0; i < 3; i++) await page.keyboard.press('Control+Z');

    // 8. Diagnostics from the server: squiggles and the Problems panel with codes.
    await openFile(page, 'typo.opal');
    await page.waitForSelector('.squiggly-error', { timeout: 60000 });
    await page.keyboard.press('Control+Shift+M');
    const problems = await until('problems', async () => {
      const t = await page.locator('.markers-panel').innerText();
      return /E\d{4}/.test(t) ? t : undefined;
    });
    check('diagnostics', problems.includes('cities') && /E\d{4}/.test(problems), JSON.stringify(problems.replace(/\s+/g, ' ').slice(0, 200)));
    await page.screenshot({ path: `${shots}/vscode-problems.png` });

    // 8b. The `opal` task provider and the $opal problem matcher: `check unopened.opal` (a file
    // the language server never saw) puts its error into Problems.
    await palette(page, 'Tasks: Run Task');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'opal' }).first().waitFor({ state: 'visible', timeout: 30000 });
    await page.keyboard.type('opal', { delay: 20 });
    await page.waitForTimeout(500);
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'check unopened.opal' }).first().waitFor({ state: 'visible', timeout: 30000 });
    await page.keyboard.type('check unopened', { delay: 20 });
    await page.waitForTimeout(500);
    await page.keyboard.press('Enter');
    // The task's terminal takes the focus (and Ctrl+Shift+M with it): click the Problems tab.
    await page.waitForTimeout(2000);
    const matched = await until('the task problem in Problems', async () => {
      if (!(await page.locator('.markers-panel').isVisible().catch(() => false))) await page.locator('.part.panel .action-label', { hasText: /^\s*problems/i }).first().click();
      const t = (await page.locator('.markers-panel').innerText()).replace(/\s+/g, ' ');
      seen = t;
      return t.includes('unopened.opal') && t.includes('zebra') ? t : undefined;
    }, 60000).catch(() => seen);
    check('task `check FILE` + $opal problem matcher', /unopened\.opal.*unbound name `zebra`.*E0100/.test(matched), JSON.stringify(matched.slice(Math.max(0, matched.indexOf('unopened')), matched.indexOf('unopened') + 160)));
    await page.screenshot({ path: `${shots}/vscode-task-problems.png` });
    await page.keyboard.press('Escape');

    // 9. A server that cannot start: its own stderr in the message, Restart offered, the status
    // bar item shows the failure; no languageclient stack trace.
    // `opal.server.path` is machine-overridable: in code-server (a remote) it is read from the
    // workspace settings, not from the browser user's.
    const settingsFile = path.join(folder, '.vscode', 'settings.json');
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    const settings = '{}\n';
    const fake = path.join(path.dirname(userData), 'broken-opal');
    fs.writeFileSync(fake, '#!/bin/sh\necho "opal: cannot start: the test broke this server on purpose" >&2\nexit 3\n', { mode: 0o755 });
    fs.writeFileSync(settingsFile, JSON.stringify({ 'opal.server.path': fake }));
    const toast = await until('the failure notification', async () => {
      const t = await page.locator('.notifications-toasts').innerText();
      seen = t;
      return t.includes('broke this server on purpose') ? t : undefined;
    }, 60000).catch(() => seen);
    const crashedIcon = await until('status bar: crashed', async () => {
      const c = await statusBarIcon(page);
      seen = String(c);
      return c && c.includes('codicon-error') ? c : undefined;
    }, 30000).catch(() => seen);
    check('failed start: own stderr, Restart, no stack trace', toast.includes('broke this server on purpose') && toast.includes('Restart') && !/\n\s+at /.test(toast), JSON.stringify(toast.replace(/\s+/g, ' ').slice(0, 240)));
    check('status bar item shows the crash', crashedIcon.includes('codicon-error'), crashedIcon);
    await page.screenshot({ path: `${shots}/vscode-server-failed.png` });
    fs.writeFileSync(settingsFile, settings);
    const readyIcon = await until('status bar: ready again', async () => {
      const c = await statusBarIcon(page);
      seen = String(c);
      return c && c.includes('codicon-check') ? c : undefined;
    }, 90000).catch(() => seen);
    check('status bar item: ready after the setting is fixed', readyIcon.includes('codicon-check'), readyIcon);
    await page.keyboard.press('Escape');

    // 10. Restart the server. Its log (read from the output channel's file, which does not
    // depend on what is drawn) shows one more start; the status bar says ready; diagnostics come
    // back.
    const startsBefore = (outputChannelFile().match(/starting .*opal lsp \(found: bundled\)/g) || []).length;
    await palette(page, 'OPAL: Restart Language Server');
    const log = await until('a new start in the output channel', async () => {
      const t = outputChannelFile();
      seen = t.slice(-300);
      return (t.match(/starting .*opal lsp \(found: bundled\)/g) || []).length > startsBefore ? t : undefined;
    }, 120000).catch(() => '');
    const readyAgain = await until('status bar: ready after restart', async () => {
      const c = await statusBarIcon(page);
      return c && c.includes('codicon-check') ? c : undefined;
    }, 120000).catch(() => '');
    check('restart and output channel', log !== '' && readyAgain !== '' && startsBefore >= 1, `starts before ${startsBefore}, log tail ${JSON.stringify(log.slice(-200))}`);
    await palette(page, 'OPAL: Show Output');
    const shown = await until('output channel drawn', async () => {
      const t = (await page.locator('.part.panel').first().innerText()).replace(/\u00a0/g, ' ');
      seen = t;
      return /starting .*opal lsp/.test(t) ? t : undefined;
    }, 60000).catch(() => '');
    check('show output opens the OPAL channel', shown !== '', JSON.stringify(shown.replace(/\s+/g, ' ').slice(-160)));
    await openFile(page, 'typo.opal');
    await page.waitForSelector('.squiggly-error', { timeout: 90000 });
    check('diagnostics after restart', true);
    await page.screenshot({ path: `${shots}/vscode-output.png` });
  } catch (e) {
    check('e2e run', false, e.message.split('\n')[0]);
    await page.screenshot({ path: `${shots}/vscode-fail.png` }).catch(() => {});
  } finally {
    await browser.close();
  }
  const failed = checks.filter((c) => !c.ok).length;
  console.log(`vscode e2e: ${checks.length - failed} passed, ${failed} failed`);
  process.exitCode = failed === 0 && checks.length >= 27 ? 0 : 1;
})();
