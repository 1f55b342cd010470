// The language server's state as the status bar shows it, the tail of its stderr for error
// messages, and when a crashing server is restarted. Free of `vscode` for the unit tests.

export type ServerState = 'starting' | 'ready' | 'crashed' | 'stopped' | 'missing';

export interface StatusView {
  text: string;
  tooltip: string;
  /** a theme colour for the item's background, for states that need attention */
  background?: 'statusBarItem.errorBackground' | 'statusBarItem.warningBackground';
}

export function statusView(state: ServerState, detail: string): StatusView {
  switch (state) {
    case 'starting':
      return { text: '$(loading~spin) OPAL', tooltip: `OPAL language server: starting${detail ? ` (${detail})` : ''}` };
    case 'ready':
      return { text: '$(check) OPAL', tooltip: `OPAL language server: ready${detail ? ` (${detail})` : ''}` };
    case 'crashed':
      return { text: '$(error) OPAL', tooltip: `OPAL language server: crashed${detail ? `: ${detail}` : ''}`, background: 'statusBarItem.errorBackground' };
    case 'stopped':
      return { text: '$(circle-slash) OPAL', tooltip: 'OPAL language server: stopped', background: 'statusBarItem.warningBackground' };
    case 'missing':
      return { text: '$(warning) OPAL', tooltip: `OPAL language server: not found${detail ? `: ${detail}` : ''}`, background: 'statusBarItem.errorBackground' };
  }
}

/** The last `max` lines a process wrote, for messages that say why it ended. */
export class Tail {
  private lines: string[] = [];
  constructor(private readonly max = 12) {}
  push(line: string): void {
    if (line.trim() === '') return;
    this.lines.push(line.length > 400 ? `${line.slice(0, 399)}…` : line);
    if (this.lines.length > this.max) this.lines.shift();
  }
  clear(): void {
    this.lines = [];
  }
  text(): string {
    return this.lines.join('\n');
  }
}

/** Restart a server that exits unexpectedly, unless it did so `max` times within `windowMs`. */
export class CrashPolicy {
  private times: number[] = [];
  constructor(
    private readonly max = 4,
    private readonly windowMs = 3 * 60 * 1000,
  ) {}
  /** Called when the server exited unasked; true: restart it. */
  onExit(now: number): boolean {
    this.times = this.times.filter((t) => now - t < this.windowMs);
    this.times.push(now);
    return this.times.length < this.max;
  }
  get count(): number {
    return this.times.length;
  }
  reset(): void {
    this.times = [];
  }
}

/** The message shown when the server stopped for good: its own words, not a stack trace. */
export function crashMessage(binary: string, stderr: string, why: 'start' | 'crash', count: number): string {
  const head = why === 'start' ? `The OPAL language server (${binary} lsp) did not start.` : `The OPAL language server (${binary} lsp) crashed ${count} times in 3 minutes and is not restarted.`;
  const said = stderr.trim();
  return said ? `${head} It said: ${said.split('\n').slice(-4).join(' ⏎ ')}` : `${head} It wrote nothing on stderr; see the OPAL output.`;
}
