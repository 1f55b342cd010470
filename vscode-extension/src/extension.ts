// The OPAL extension: starts `opal lsp` through vscode-languageclient and wires the commands
// the server's code lenses name (`opal.runFile`, `opal.debugFile`), the desugared-core view, the
// `opal` debugger (debug.ts), the `opal` tasks, and the server's state in the status bar.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import { CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, RevealOutputChannelOn, ServerOptions, State, TransportKind } from 'vscode-languageclient/node';
import { CORE_SCHEME, coreQuery, corePath, coreText, sourceOf } from './coreDoc';
import { registerDebugging } from './debug';
import { Found, locateOpal, realEnv } from './locate';
import { CrashPolicy, crashMessage, ServerState, statusView, Tail } from './serverState';
import { commandLine, runArgs } from './shell';
import { isOpalTask, OpalTaskDefinition, taskArgs, taskName } from './tasks';

let client: LanguageClient | undefined;
let log: vscode.LogOutputChannel;
let status: vscode.LanguageStatusItem;
let bar: vscode.StatusBarItem;
/** The last lines the server wrote on stderr (also in the output channel). */
const stderrTail = new Tail();
const crashes = new CrashPolicy();

/**
 * vscode-languageclient reports some failures with its own notifications ("couldn't create
 * connection to server", stack traces), even when the error handler handled them. They stay in
 * the output channel; the user sees the extension's one message with the server's stderr.
 */
class OpalLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}
let serverBinary = 'opal';
let serverState: ServerState = 'starting';

/** Shown with an OPAL editor, and whenever the server needs attention. */
function updateBarVisibility(): void {
  const opalEditor = vscode.window.activeTextEditor?.document.languageId === 'opal';
  if (opalEditor || serverState === 'crashed' || serverState === 'missing') bar.show();
  else bar.hide();
}

/** The status bar item and the `{}` language status follow the client's state. */
function setState(state: ServerState, detail = ''): void {
  const v = statusView(state, detail);
  serverState = state;
  bar.text = v.text;
  const tip = new vscode.MarkdownString(`${v.tooltip}\n\n[Restart](command:opal.restartServer) · [Show Output](command:opal.showOutput)`, true);
  tip.isTrusted = { enabledCommands: ['opal.restartServer', 'opal.showOutput'] };
  bar.tooltip = tip;
  bar.backgroundColor = v.background ? new vscode.ThemeColor(v.background) : undefined;
  status.text = `opal lsp: ${state}`;
  status.detail = detail;
  status.severity = state === 'ready' || state === 'starting' ? vscode.LanguageStatusSeverity.Information : vscode.LanguageStatusSeverity.Error;
  void vscode.commands.executeCommand('setContext', 'opal.serverState', state);
  updateBarVisibility();
}

/** A failure of the server in its own words, with Restart and Show Output. */
function reportServerFailure(why: 'start' | 'crash'): void {
  // stderr is read line by line: give the last lines a moment to arrive after the exit.
  setTimeout(() => {
    const msg = crashMessage(serverBinary, stderrTail.text(), why, crashes.count);
    log.error(msg);
    void vscode.window.showErrorMessage(msg, 'Restart', 'Show Output').then((pick) => {
      if (pick === 'Restart') void vscode.commands.executeCommand('opal.restartServer');
      if (pick === 'Show Output') log.show(true);
    });
  }, 300);
}

/** Whether a native window can open where the extension runs (not code-server, SSH, WSL…). */
function hasDisplay(): boolean {
  if (vscode.env.remoteName) return false;
  if (process.platform === 'win32' || process.platform === 'darwin') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  log = vscode.window.createOutputChannel('OPAL', { log: true });
  status = vscode.languages.createLanguageStatusItem('opal.server', { language: 'opal' });
  status.name = 'OPAL language server';
  status.command = { title: 'Show Output', command: 'opal.showOutput' };
  bar = vscode.window.createStatusBarItem('opal.status', vscode.StatusBarAlignment.Left, 10);
  bar.name = 'OPAL language server';
  bar.command = 'opal.serverMenu';
  updateBarVisibility();
  void vscode.commands.executeCommand('setContext', 'opal.hasDisplay', hasDisplay());
  const core = new CoreView();
  registerDebugging(context, { opalPath: () => findOpal(context, 'server.path')?.path, log: log });
  context.subscriptions.push(
    log,
    status,
    bar,
    vscode.window.onDidChangeActiveTextEditor(() => updateBarVisibility()),
    vscode.tasks.registerTaskProvider('opal', new TaskProvider(context)),
    vscode.commands.registerCommand('opal.serverMenu', async () => {
      const pick = await vscode.window.showQuickPick(
        [
          { label: '$(debug-restart) Restart Language Server', id: 'opal.restartServer' },
          { label: '$(output) Show Output', id: 'opal.showOutput' },
          { label: '$(debug-stop) Stop Language Server', id: 'opal.stopServer' },
        ],
        { title: bar.tooltip instanceof vscode.MarkdownString ? bar.tooltip.value.split('\n')[0] : 'OPAL' },
      );
      if (pick) await vscode.commands.executeCommand(pick.id);
    }),
    vscode.commands.registerCommand('opal.stopServer', async () => {
      await stopClient();
      setState('stopped');
    }),
    vscode.commands.registerCommand('opal.openStepDebugger', (arg?: unknown) => openStepDebugger(context, arg)),
    vscode.workspace.registerTextDocumentContentProvider(CORE_SCHEME, core),
    vscode.workspace.onDidChangeTextDocument((e) => core.sourceChanged(e.document.uri)),
    vscode.commands.registerCommand('opal.restartServer', async () => {
      await stopClient();
      crashes.reset();
      await startClient(context);
      core.refreshAll();
    }),
    vscode.commands.registerCommand('opal.runFile', (arg?: unknown) => runFile(context, arg)),
    vscode.commands.registerCommand('opal.debugFile', (arg?: unknown) => debugFile(arg)),
    vscode.commands.registerCommand('opal.showDesugared', (arg?: unknown) => core.show(arg)),
    vscode.commands.registerCommand('opal.showOutput', () => log.show(true)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('opal.server.path')) {
        log.info('opal.server.path changed: restarting the language server');
        await stopClient();
        crashes.reset();
        await startClient(context);
        core.refreshAll();
      }
    }),
  );
  await startClient(context);
}

export function deactivate(): Thenable<void> | undefined {
  return stopClient();
}

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** The `opal` binary for `setting` (a key under `opal.`), with a visible error when there is none. */
function findOpal(context: vscode.ExtensionContext, setting: 'server.path' | 'debugger.path'): Found | undefined {
  const config = vscode.workspace.getConfiguration('opal');
  let value = config.get<string>(setting) ?? '';
  let name = `opal.${setting}`;
  if (setting === 'debugger.path' && value.trim() === '') {
    value = config.get<string>('server.path') ?? '';
    name = 'opal.server.path';
  }
  const found = locateOpal(value, name, context.extensionPath, realEnv(), workspaceFolder());
  if ('path' in found) return found;
  log.error(`${found.error} ${found.fix}`);
  void vscode.window.showErrorMessage(`${found.error} ${found.fix}`, 'Open Settings', 'Show Output').then((pick) => {
    if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', name);
    if (pick === 'Show Output') log.show(true);
  });
  return undefined;
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const opal = findOpal(context, 'server.path');
  if (!opal) {
    setState('missing', 'set opal.server.path or install opal');
    return;
  }
  serverBinary = opal.path;
  stderrTail.clear();
  log.info(`starting ${opal.path} lsp (found: ${opal.source})`);
  setState('starting', opal.path);
  // TransportKind.stdio appends `--stdio`, which `opal lsp` accepts.
  const serverOptions: ServerOptions = { command: opal.path, args: ['lsp'], transport: TransportKind.stdio };
  // starting → running, or → failed (reported once); a crash while running is restarted.
  let phase: 'starting' | 'running' | 'failed' = 'starting';
  const failed = (): void => {
    if (phase === 'failed') return;
    phase = 'failed';
    setState('crashed', 'it did not start');
    reportServerFailure('start');
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'opal' },
      { scheme: 'untitled', language: 'opal' },
    ],
    // The extension runs the Run and Debug lenses' commands (opal.runFile, opal.debugFile);
    // other clients get a Run lens the server runs.
    initializationOptions: { clientLenses: true },
    outputChannel: log,
    traceOutputChannel: log,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // The server's stderr goes to the output channel and into `stderrTail`, so a failure is
    // reported in the server's own words.
    stdioOptions: {
      stdout: (input, channel) => {
        readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', (l) => channel.info(l));
      },
      stderr: (input, channel) => {
        readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', (l) => {
          stderrTail.push(l);
          channel.error(l);
        });
      },
    },
    initializationFailedHandler: (e) => {
      log.error(`the language server failed to initialize: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    },
    errorHandler: {
      error: (e, _message, count) => {
        log.error(`connection to the language server: ${e.message}`);
        return { action: phase === 'running' && (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
      },
      closed: () => {
        // An exit before the server answered `initialize` is a failed start: reported once, by
        // `failed`, never restarted (it would fail the same way).
        if (phase !== 'running') {
          failed();
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        if (crashes.onExit(Date.now())) {
          log.warn(`the language server exited unexpectedly; restarting it (${crashes.count} in 3 minutes)`);
          return { action: CloseAction.Restart, handled: true };
        }
        phase = 'failed';
        setState('crashed', stderrTail.text().split('\n').slice(-1)[0] ?? '');
        reportServerFailure('crash');
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
  };
  const c = new OpalLanguageClient('opal', 'OPAL Language Server', serverOptions, clientOptions);
  client = c;
  c.onDidChangeState((e) => {
    if (client !== c || phase === 'failed') return;
    if (e.newState === State.Running) setState('ready', opal.path);
    else if (e.newState === State.Starting) setState('starting', opal.path);
    else if (e.newState === State.Stopped) setState('stopped');
  });
  try {
    await c.start();
    phase = 'running';
    setState('ready', `${opal.source}: ${opal.path}`);
  } catch (e) {
    log.error(`the language server did not start: ${e instanceof Error ? e.message : String(e)}`);
    failed();
    if (client === c) client = undefined;
  }
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (!c) return;
  try {
    await c.stop(5000);
  } catch (e) {
    log.warn(`stopping the language server: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The source document a command is about: a URI from a code lens, else the active editor's. */
function targetUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string') {
    try {
      return vscode.Uri.parse(arg, true);
    } catch {
      return undefined;
    }
  }
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.languageId === 'opal') return editor.document.uri;
  if (editor && editor.document.uri.scheme === CORE_SCHEME) return vscode.Uri.parse(sourceOf(editor.document.uri.query));
  return undefined;
}

/** A saved file on disk for `arg`, or a message saying why there is none. */
async function savedFile(arg: unknown, action: string): Promise<string | undefined> {
  const uri = targetUri(arg);
  if (!uri) {
    void vscode.window.showErrorMessage(`OPAL: open an .opal file to ${action} it.`);
    return undefined;
  }
  if (uri.scheme !== 'file') {
    void vscode.window.showErrorMessage(`OPAL: save the program to a file first (${action} needs a file on disk).`);
    return undefined;
  }
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc?.isDirty && !(await doc.save())) {
    void vscode.window.showErrorMessage(`OPAL: ${uri.fsPath} could not be saved.`);
    return undefined;
  }
  return uri.fsPath;
}

async function runFile(context: vscode.ExtensionContext, arg: unknown): Promise<void> {
  const file = await savedFile(arg, 'run');
  if (!file) return;
  const opal = findOpal(context, 'server.path');
  if (!opal) return;
  const name = 'OPAL';
  const terminal = vscode.window.terminals.find((t) => t.name === name && t.exitStatus === undefined) ?? vscode.window.createTerminal({ name, cwd: path.dirname(file) });
  terminal.show(true);
  const line = commandLine(runArgs(opal.path, file, (w) => fs.existsSync(w)), process.platform);
  log.info(`run: ${line}`);
  terminal.sendText(line, true);
}

/** The Debug lens and command: debug the file in the editor (F5's debugger, `opal dap`). */
async function debugFile(arg: unknown): Promise<void> {
  const file = await savedFile(arg, 'debug');
  if (!file) return;
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  const ok = await vscode.debug.startDebugging(folder, { type: 'opal', request: 'launch', name: `Debug ${path.basename(file)}`, program: file });
  if (!ok) log.warn(`debugging ${file} did not start`);
}

/** "Open in Step Debugger": the native window (`opal debug FILE`), where a display exists. */
function openStepDebugger(context: vscode.ExtensionContext, arg: unknown): Promise<void> {
  return savedFile(arg, 'debug').then((file) => {
    if (!file) return;
    if (!hasDisplay()) {
      void vscode.window.showErrorMessage('OPAL: the step debugger is a native window and there is no display here (remote, code-server or no DISPLAY). Use F5 to debug in the editor.');
      return;
    }
    const opal = findOpal(context, 'debugger.path');
    if (!opal) return;
    log.info(`debug: ${opal.path} debug ${file}`);
    // The debugger is its own window: start it and report only if it fails.
    const child = spawn(opal.path, ['debug', file], { cwd: path.dirname(file), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString('utf8');
    });
    child.on('error', (e) => {
      log.error(`the step debugger did not start: ${e.message}`);
      void vscode.window.showErrorMessage(`OPAL: the step debugger (${opal.path} debug) did not start: ${e.message}`);
    });
    child.on('exit', (code) => {
      if (code === 0 || code === null) return;
      const why = stderr.trim() || `exit code ${code}`;
      log.error(`the step debugger exited with code ${code}: ${why}`);
      void vscode.window.showErrorMessage(`OPAL: the step debugger exited with code ${code}: ${why}`, 'Show Output').then((pick) => {
        if (pick) log.show(true);
      });
    });
  });
}

/** Tasks `opal run FILE` and `opal check FILE` for the .opal files in the workspace. */
class TaskProvider implements vscode.TaskProvider {
  constructor(private readonly context: vscode.ExtensionContext) {}

  async provideTasks(): Promise<vscode.Task[]> {
    const files = new Set<string>();
    const active = vscode.window.activeTextEditor?.document;
    if (active?.languageId === 'opal' && active.uri.scheme === 'file') files.add(active.uri.fsPath);
    for (const uri of await vscode.workspace.findFiles('**/*.opal', '**/node_modules/**', 50)) files.add(uri.fsPath);
    const tasks: vscode.Task[] = [];
    for (const file of files) {
      for (const command of ['run', 'check'] as const) {
        const t = this.task({ type: 'opal', command, file }, vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file)) ?? vscode.TaskScope.Workspace);
        if (t) tasks.push(t);
      }
    }
    return tasks;
  }

  resolveTask(task: vscode.Task): vscode.Task | undefined {
    const d = task.definition;
    if (!isOpalTask(d)) return undefined;
    return this.task(d, task.scope ?? vscode.TaskScope.Workspace, task.definition);
  }

  private task(d: OpalTaskDefinition, scope: vscode.WorkspaceFolder | vscode.TaskScope, definition: vscode.TaskDefinition = d): vscode.Task | undefined {
    const opal = findOpal(this.context, 'server.path');
    if (!opal) return undefined;
    const exec = new vscode.ProcessExecution(opal.path, taskArgs(d, (p) => fs.existsSync(p)), { cwd: path.dirname(d.file) });
    const t = new vscode.Task(definition, scope, taskName(d), 'opal', exec, ['$opal']);
    t.group = d.command === 'check' ? vscode.TaskGroup.Build : undefined;
    t.detail = `opal ${d.command} ${d.file}`;
    return t;
  }
}

/** The read-only "Show Desugared Core" documents, refreshed as their sources change. */
class CoreView implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly timers = new Map<string, NodeJS.Timeout>();

  coreUri(source: vscode.Uri): vscode.Uri {
    const s = source.toString();
    return vscode.Uri.from({ scheme: CORE_SCHEME, path: corePath(s), query: coreQuery(s) });
  }

  async show(arg: unknown): Promise<void> {
    const source = targetUri(arg);
    if (!source) {
      void vscode.window.showErrorMessage('OPAL: open an .opal file to see its desugared core.');
      return;
    }
    // The server answers for documents it has open: make sure this one is.
    await vscode.workspace.openTextDocument(source);
    const doc = await vscode.workspace.openTextDocument(this.coreUri(source));
    await vscode.languages.setTextDocumentLanguage(doc, 'opal');
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const source = sourceOf(uri.query);
    if (!client) return '# The OPAL language server is not running: see OPAL: Show Output.\n';
    try {
      const body = await client.sendRequest<string>('opal/desugar', { textDocument: { uri: source } });
      return coreText(source, body);
    } catch (e) {
      return `# The language server could not desugar ${source}: ${e instanceof Error ? e.message : String(e)}\n`;
    }
  }

  sourceChanged(source: vscode.Uri): void {
    if (source.scheme === CORE_SCHEME) return;
    const core = this.coreUri(source);
    const key = core.toString();
    if (!vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.changed.fire(core);
      }, 150),
    );
  }

  refreshAll(): void {
    for (const d of vscode.workspace.textDocuments) if (d.uri.scheme === CORE_SCHEME) this.changed.fire(d.uri);
  }
}
