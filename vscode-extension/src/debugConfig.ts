// Launch configurations for the `opal` debugger: what F5 fills in when there is no launch.json,
// and the checks before `opal dap` is started. Free of `vscode` so the unit tests can run it.

export interface LaunchConfig {
  type?: string;
  request?: string;
  name?: string;
  program?: string;
  world?: string;
  replay?: string;
  strategy?: string;
  stopOnEntry?: boolean;
  maxSteps?: number;
  allowExec?: boolean;
  [key: string]: unknown;
}

export const STRATEGIES = ['opportunistic', 'cbv', 'lazy'];

/** The configuration a new launch.json starts with. */
export function initialConfiguration(): LaunchConfig {
  return { type: 'opal', request: 'launch', name: 'Debug current OPAL file', program: '${file}', stopOnEntry: false };
}

/** Does a Python script use OPAL's decorators (`from opal import …`, `import opal`)? */
export function importsOpal(text: string): boolean {
  return /^[ \t]*(from[ \t]+opal[ \t]+import\b|import[ \t]+opal\b)/m.test(text);
}

/** The active editor's file, as far as debugging it goes. */
export interface ActiveFile {
  language: string | undefined;
  /** For a Python file: does it import `opal` (so OPAL can run it)? */
  importsOpal?: boolean;
}

/** Can OPAL debug this file: an .opal file, or a Python script that imports `opal`? */
function debuggable(active: ActiveFile): boolean {
  return active.language === 'opal' || (active.language === 'python' && active.importsOpal === true);
}

/**
 * Fills a configuration before variables are substituted. An empty one (F5 with no launch.json)
 * debugs the active file when OPAL can (an .opal file, or a Python script that imports `opal`);
 * a missing `program` means the active file. Returns a message instead when there is nothing
 * to debug.
 */
export function fillLaunch(config: LaunchConfig, active: ActiveFile): { config: LaunchConfig } | { error: string } {
  const empty = !config.type && !config.request && !config.name;
  if (empty) {
    if (!debuggable(active)) return { error: 'Open an .opal file or a Python script that imports opal to debug it (F5), or add an "opal" configuration to launch.json.' };
    const name = active.language === 'python' ? 'Debug Python script with OPAL' : 'Debug OPAL file';
    return { config: { ...initialConfiguration(), name } };
  }
  const out: LaunchConfig = { ...config, type: config.type ?? 'opal', request: config.request ?? 'launch' };
  if (out.request !== 'launch') return { error: `OPAL debugging supports "request": "launch" only, not "${out.request}".` };
  if (out.program === undefined || out.program === '') {
    if (!debuggable(active)) return { error: 'The launch configuration has no "program", and the active editor is neither an .opal file nor a Python script that imports opal.' };
    out.program = '${file}';
  }
  return { config: out };
}

/** Checks after substitution: the program is an existing .opal or .py file, the arguments make sense. */
export function checkLaunch(config: LaunchConfig, exists: (p: string) => boolean): string | undefined {
  const p = config.program;
  if (typeof p !== 'string' || p === '') return 'The launch configuration has no "program".';
  if (!p.endsWith('.opal') && !p.endsWith('.py')) return `"program" is ${p}, which is neither an .opal file nor a Python script: open the file to debug, or set "program".`;
  if (!exists(p)) return `"program" is ${p}, which does not exist.`;
  if (config.strategy !== undefined && !STRATEGIES.includes(String(config.strategy))) return `"strategy" is "${String(config.strategy)}"; use one of ${STRATEGIES.join(', ')}.`;
  for (const key of ['world', 'replay'] as const) {
    const v = config[key];
    if (v !== undefined && (typeof v !== 'string' || !exists(v))) return `"${key}" is ${JSON.stringify(v)}, which does not exist.`;
  }
  if (config.maxSteps !== undefined && !(Number.isInteger(config.maxSteps) && Number(config.maxSteps) > 0)) return `"maxSteps" must be a positive whole number, not ${JSON.stringify(config.maxSteps)}.`;
  return undefined;
}
