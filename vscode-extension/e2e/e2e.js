// Drives a real VS Code (code-server) in headless Chromium with the packaged extension installed
// and checks what a user sees: highlighting, the server's diagnostics, hover, the Run/Debug
// code lenses, Show Desugared Core (and its refresh on edit), Restart and Show Output.
// usage: node e2e.js BASE_URL WORKSPACE_DIR SCREENSHOT_DIR PROFILE_DIR
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
      if (argv.length > 1 && path.basename(argv[0]) === 'opal' && argv[1] === 'debug') out.push(pid);
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

const [base, folder, shots, profile] = process.argv.slice(2);
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
  await page.waitForTimeout(800);
  await page.keyboard.press('Enter');
}

async function openFile(page, name) {
  await page.keyboard.press('Control+P');
  await page.waitForSelector('.quick-input-widget', { state: 'visible', timeout: 20000 });
  await page.keyboard.type(name, { delay: 20 });
  await page.waitForTimeout(1200);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`.tab.active[aria-label*="${name}"]`, { timeout: 30000 });
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

    // 5. The Debug lens starts `opal debug FILE`: a window where there is a display, else the
    // failure ("cannot open a window") shown to the user.
    await page.locator('.codelens-decoration a', { hasText: 'Debug' }).first().click();
    const debugNote = await until('debugger window or notification', async () => {
      const pids = debuggerPids();
      if (pids.length > 0) return `running: opal debug (pid ${pids.join(', ')})`;
      const t = await page.locator('.notifications-toasts').innerText();
      return t.includes('step debugger') ? t : undefined;
    }, 20000).catch(() => '');
    check('debug lens runs `opal debug`', debugNote.startsWith('running') || debugNote.includes('step debugger'), JSON.stringify(debugNote.slice(0, 200)));
    for (const pid of debuggerPids()) process.kill(Number(pid));
    await page.keyboard.press('Escape');

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

    // 9. Restart the server, then its log shows both starts and diagnostics come back.
    await palette(page, 'OPAL: Restart Language Server');
    await page.waitForTimeout(3000);
    await palette(page, 'OPAL: Show Output');
    const out = await until('output channel', async () => {
      const t = (await page.locator('.panel .monaco-editor .view-lines').allInnerTexts()).join('\n').replace(/\u00a0/g, ' ');
      seen = t;
      return (t.match(/starting .*opal lsp/g) || []).length >= 2 ? t : undefined;
    }).catch(() => '');
    check('restart and output channel', (out.match(/found: bundled/g) || []).length >= 2, JSON.stringify(out.replace(/\s+/g, ' ').slice(0, 300)));
    await openFile(page, 'typo.opal');
    await page.waitForSelector('.squiggly-error', { timeout: 60000 });
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
  process.exitCode = failed === 0 && checks.length >= 11 ? 0 : 1;
})();
