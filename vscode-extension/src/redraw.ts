// When the task graph redraws during a debug session: at every stop, and every REDRAW_MS while
// the program runs (Continue, a step that runs long), so the graph grows and collapses as the
// calls dispatch and resolve instead of jumping at the next stop. Free of `vscode`, so the
// unit tests drive it with the adapter's messages and mock timers.

/** Requests after which the program runs until its next stop. */
export const RUNNING = ['continue', 'next', 'stepIn', 'stepOut', 'reverseContinue', 'configurationDone'];
/** How often the graph is redrawn while the program runs (ms). */
export const REDRAW_MS = 500;

/** A Debug Adapter Protocol message as the tracker sees it. */
export interface DapMessage {
  type?: string;
  command?: string;
  event?: string;
}

export class Redraw {
  private timer: ReturnType<typeof setInterval> | undefined;

  /** `refresh(live)` redraws the graph (`live`: the program is running). */
  constructor(private readonly refresh: (live: boolean) => void) {}

  /** A message the client sends to the adapter. */
  toAdapter(m: DapMessage): void {
    if (m.type === 'request' && RUNNING.includes(m.command ?? '')) this.running();
  }

  /** A message the adapter sends; true when the session ended. */
  fromAdapter(m: DapMessage): boolean {
    if (m.type !== 'event') return false;
    if (m.event === 'stopped') {
      this.stop();
      this.refresh(false);
    }
    if (m.event === 'terminated' || m.event === 'exited') {
      this.stop();
      return true;
    }
    return false;
  }

  get isRunning(): boolean {
    return this.timer !== undefined;
  }

  private running(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.refresh(true), REDRAW_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
