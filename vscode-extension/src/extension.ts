// The OPAL extension: starts `opal lsp` through vscode-languageclient and wires the commands
// the server's code lenses name (`opal.runFile`, `opal.debugFile`) plus the desugared-core view.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { CORE_SCHEME, coreQuery, corePath, coreText, sourceOf } from './coreDoc';
import { Found, locateOpal, realEnv } from './locate';
import { commandLine, runArgs } from './shell';

let client: LanguageClient | undefined;
let log: vscode.LogOutputChannel;
let status: vscode.LanguageStatusItem;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  log = vscode.window.createOutputChannel('OPAL', { log: true });
  status = vscode.languages.createLanguageStatusItem('opal.server', { language: 'opal' });
  status.name = 'OPAL language server';
  status.command = { title: 'Show Output', command: 'opal.showOutput' };
  const core = new CoreView();
  context.subscriptions.push(
    log,
    status,
    vscode.workspace.registerTextDocumentContentProvider(CORE_SCHEME, core),
    vscode.workspace.onDidChangeTextDocument((e) => core.sourceChanged(e.document.uri)),
    vscode.commands.registerCommand('opal.restartServer', async () => {
      await stopClient();
      await startClient(context);
      core.refreshAll();
    }),
    vscode.commands.registerCommand('opal.runFile', (arg?: unknown) => runFile(context, arg)),
    vscode.commands.registerCommand('opal.debugFile', (arg?: unknown) => debugFile(context, arg)),
    vscode.commands.registerCommand('opal.showDesugared', (arg?: unknown) => core.show(arg)),
    vscode.commands.registerCommand('opal.showOutput', () => log.show(true)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('opal.server.path')) {
        log.info('opal.server.path changed: restarting the language server');
        await stopClient();
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
    status.text = 'opal lsp: not found';
    status.severity = vscode.LanguageStatusSeverity.Error;
    return;
  }
  log.info(`starting ${opal.path} lsp (found: ${opal.source})`);
  // TransportKind.stdio appends `--stdio`, which `opal lsp` accepts.
  const serverOptions: ServerOptions = { command: opal.path, args: ['lsp'], transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'opal' },
      { scheme: 'untitled', language: 'opal' },
    ],
    outputChannel: log,
    traceOutputChannel: log,
  };
  client = new LanguageClient('opal', 'OPAL Language Server', serverOptions, clientOptions);
  try {
    await client.start();
    status.text = `opal lsp (${opal.source})`;
    status.detail = opal.path;
    status.severity = vscode.LanguageStatusSeverity.Information;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    log.error(`the language server did not start: ${msg}`);
    status.text = 'opal lsp: failed';
    status.severity = vscode.LanguageStatusSeverity.Error;
    void vscode.window.showErrorMessage(`The OPAL language server (${opal.path}) did not start: ${msg}`, 'Show Output').then((pick) => {
      if (pick) log.show(true);
    });
    client = undefined;
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

function debugFile(context: vscode.ExtensionContext, arg: unknown): Promise<void> {
  return savedFile(arg, 'debug').then((file) => {
    if (!file) return;
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
