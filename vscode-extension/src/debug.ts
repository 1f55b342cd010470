// Debugging in the editor: the `opal` debug type runs `opal dap` (the binary the language server
// uses), F5 with no launch.json debugs the active file, and a webview beside the editor draws the
// task graph from the adapter's `opal/taskGraph` request at every stop.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkLaunch, fillLaunch, importsOpal, initialConfiguration, LaunchConfig } from './debugConfig';
import { isTaskGraph, renderPage, TaskGraph } from './graph';
import { Redraw } from './redraw';
/** The share of the editor area the graph takes when it opens a second column: the code keeps
 * 72 %: 80 columns at the default font on a 1400-pixel window with the sidebar open. */
const GRAPH_SHARE = 0.28;

export interface DebugDeps {
  /** The `opal` binary, or undefined after telling the user why there is none. */
  opalPath(): string | undefined;
  log: vscode.LogOutputChannel;
}

export function registerDebugging(context: vscode.ExtensionContext, deps: DebugDeps): void {
  const graph = new GraphPanel(context, deps.log);
  context.subscriptions.push(
    vscode.debug.registerDebugConfigurationProvider('opal', new ConfigProvider()),
    vscode.debug.registerDebugConfigurationProvider('opal', new DynamicConfigs(), vscode.DebugConfigurationProviderTriggerKind.Dynamic),
    vscode.debug.registerDebugAdapterDescriptorFactory('opal', new AdapterFactory(deps)),
    vscode.debug.registerDebugAdapterTrackerFactory('opal', {
      createDebugAdapterTracker: (session) => {
        // Redrawn at every stop, and while a request that runs the program runs.
        const redraw = new Redraw((live) => {
          if (!live) void graph.refresh(session);
          else if (graph.shown) void graph.refresh(session, false);
        });
        return {
          onWillReceiveMessage: (m: { type?: string; command?: string }) => redraw.toAdapter(m),
          onDidSendMessage: (m: { type?: string; event?: string }) => {
            if (redraw.fromAdapter(m)) graph.ended(session);
          },
          onExit: () => redraw.stop(),
          onError: () => redraw.stop(),
        };
      },
    }),
    vscode.commands.registerCommand('opal.showTaskGraph', () => graph.reveal(vscode.debug.activeDebugSession)),
    graph,
  );
}

class ConfigProvider implements vscode.DebugConfigurationProvider {
  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [initialConfiguration() as vscode.DebugConfiguration];
  }

  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    const active = { language: doc?.languageId, importsOpal: doc?.languageId === 'python' && importsOpal(doc.getText()) };
    const filled = fillLaunch(config as LaunchConfig, active);
    if ('error' in filled) {
      void vscode.window.showErrorMessage(`OPAL: ${filled.error}`);
      return undefined;
    }
    return filled.config as vscode.DebugConfiguration;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    const program = typeof config.program === 'string' ? config.program : '';
    // Debug what is on disk: save the program first (as Run File does).
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === program);
    if (doc?.isDirty) await doc.save();
    const problem = checkLaunch(config as LaunchConfig, (p) => fs.existsSync(p));
    if (problem) {
      void vscode.window.showErrorMessage(`OPAL: ${problem}`);
      return undefined;
    }
    return config;
  }
}

/** "OPAL: Debug FILE" entries in the Run and Debug view's dropdown for the open .opal files and
 * Python scripts that import opal. */
class DynamicConfigs implements vscode.DebugConfigurationProvider {
  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return vscode.workspace.textDocuments
      .filter((d) => (d.languageId === 'opal' || (d.languageId === 'python' && importsOpal(d.getText()))) && d.uri.scheme === 'file')
      .map((d) => ({ type: 'opal', request: 'launch', name: `Debug ${path.basename(d.uri.fsPath)}`, program: d.uri.fsPath }));
  }
}

class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly deps: DebugDeps) {}

  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.ProviderResult<vscode.DebugAdapterDescriptor> {
    const opal = this.deps.opalPath();
    if (!opal) throw new Error('the opal binary was not found (see the OPAL output and opal.server.path)');
    const program = typeof session.configuration.program === 'string' ? session.configuration.program : undefined;
    const cwd = program ? path.dirname(program) : session.workspaceFolder?.uri.fsPath;
    this.deps.log.info(`debug: starting ${opal} dap for ${program ?? '(no program)'}`);
    return new vscode.DebugAdapterExecutable(opal, ['dap'], cwd ? { cwd } : undefined);
  }
}

/** The task graph beside the editor, redrawn at every stop of an `opal` session. */
class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private session: vscode.DebugSession | undefined;
  private mode: 'calls' | 'statements' = 'calls';
  private last: TaskGraph | undefined;
  private note = '';
  private focusLine: number | undefined;
  private generation = 0;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  reveal(session: vscode.DebugSession | undefined): void {
    if (session?.type === 'opal') this.session = session;
    this.ensure(false);
    if (this.session) void this.refresh(this.session);
  }

  /** Is the graph open (a redraw while running does not open it)? */
  get shown(): boolean {
    return this.panel !== undefined;
  }

  private ensure(preserveFocus: boolean): vscode.WebviewPanel {
    if (this.panel) {
      if (!this.panel.visible) this.panel.reveal(vscode.ViewColumn.Beside, preserveFocus);
      return this.panel;
    }
    const groups = vscode.window.tabGroups.all.length;
    const panel = vscode.window.createWebviewPanel('opal.taskGraph', 'OPAL Task Graph', { viewColumn: vscode.ViewColumn.Beside, preserveFocus }, { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [] });
    panel.iconPath = vscode.Uri.joinPath(this.context.extensionUri, 'images', 'icon.png');
    panel.onDidDispose(() => {
      this.panel = undefined;
    });
    panel.webview.onDidReceiveMessage((m: { type?: string; mode?: string; line?: number }) => {
      if (m.type === 'mode' && (m.mode === 'calls' || m.mode === 'statements')) {
        this.mode = m.mode;
        if (this.session) void this.refresh(this.session);
        else this.draw();
      }
      if (m.type === 'reveal' && typeof m.line === 'number') void this.revealLine(m.line);
    });
    this.panel = panel;
    // Two columns (the graph's and the code's, the graph's maybe shared with another view
    // opened beside, as the desugared core): make the graph's narrow, so the code stays
    // readable. (A new group may not be listed yet: the layout names both.) A layout of more
    // columns is the user's own and stays.
    if (groups <= 2) {
      void vscode.commands.executeCommand('vscode.setEditorLayout', { orientation: 0, groups: [{ size: 1 - GRAPH_SHARE }, { size: GRAPH_SHARE }] });
    }
    this.draw();
    return panel;
  }

  /** Redraws from the adapter; `reveal` brings the panel back if it was closed (at a stop,
   * not while running). */
  async refresh(session: vscode.DebugSession, reveal = true): Promise<void> {
    if (session.type !== 'opal') return;
    this.session = session;
    const generation = ++this.generation;
    const show = vscode.workspace.getConfiguration('opal').get<boolean>('debug.showTaskGraph', true);
    if (!show && !this.panel) return;
    try {
      const [graph, frame] = await Promise.all([
        session.customRequest('opal/taskGraph', { mode: this.mode }),
        Promise.resolve(session.customRequest('stackTrace', { threadId: 1, startFrame: 0, levels: 1 })).catch(() => undefined),
      ]);
      if (generation !== this.generation) return; // a newer stop is being drawn
      if (!isTaskGraph(graph)) throw new Error('the adapter answered opal/taskGraph with something that is not a graph');
      // While running, only a graph that changed is drawn again (a redraw reloads the page).
      if (!reveal && JSON.stringify(graph) === JSON.stringify(this.last)) return;
      this.last = graph;
      const top = (frame as { stackFrames?: { line?: number }[] } | undefined)?.stackFrames?.[0]?.line;
      this.focusLine = typeof top === 'number' ? top : undefined;
      this.note = `${graph.nodes.length} node${graph.nodes.length === 1 ? '' : 's'}, ${graph.edges.length} edge${graph.edges.length === 1 ? '' : 's'}`;
    } catch (e) {
      this.note = `the task graph is not available: ${e instanceof Error ? e.message : String(e)}`;
      this.log.warn(`opal/taskGraph: ${this.note}`);
    }
    if (reveal) this.ensure(true);
    this.draw();
  }

  ended(session: vscode.DebugSession): void {
    if (this.session?.id !== session.id) return;
    this.session = undefined;
    this.note = 'the debug session ended; the graph is from its last stop';
    this.focusLine = undefined;
    this.draw();
  }

  private draw(): void {
    if (!this.panel) return;
    const nonce = crypto.randomBytes(16).toString('base64');
    this.panel.webview.html = renderPage(this.last, { nonce, cspSource: this.panel.webview.cspSource, mode: this.mode, note: this.note, focusLine: this.focusLine });
  }

  private async revealLine(line: number): Promise<void> {
    const program = this.session?.configuration.program;
    if (typeof program !== 'string') return;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(program));
    const pos = new vscode.Position(Math.max(0, line - 1), 0);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(pos, pos) });
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
