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

/**
 * Fills a configuration before variables are substituted. An empty one (F5 with no launch.json)
 * debugs the active file when it is OPAL; a missing `program` means the active file. Returns a
 * message instead when there is nothing to debug.
 */
export function fillLaunch(config: LaunchConfig, activeLanguage: string | undefined): { config: LaunchConfig } | { error: string } {
  const empty = !config.type && !config.request && !config.name;
  if (empty) {
    if (activeLanguage !== 'opal') return { error: 'Open an .opal file to debug it (F5), or add an "opal" configuration to launch.json.' };
    return { config: { ...initialConfiguration(), name: 'Debug OPAL file' } };
  }
  const out: LaunchConfig = { ...config, type: config.type ?? 'opal', request: config.request ?? 'launch' };
  if (out.request !== 'launch') return { error: `OPAL debugging supports "request": "launch" only, not "${out.request}".` };
  if (out.program === undefined || out.program === '') {
    if (activeLanguage !== 'opal') return { error: 'The launch configuration has no "program", and the active editor is not an .opal file.' };
    out.program = '${file}';
  }
  return { config: out };
}

/** Checks after substitution: the program is an existing .opal file, the arguments make sense. */
export function checkLaunch(config: LaunchConfig, exists: (p: string) => boolean): string | undefined {
  const p = config.program;
  if (typeof p !== 'string' || p === '') return 'The launch configuration has no "program".';
  if (!p.endsWith('.opal')) return `"program" is ${p}, which is not an .opal file: open the OPAL file to debug, or set "program".`;
  if (!exists(p)) return `"program" is ${p}, which does not exist.`;
  if (config.strategy !== undefined && !STRATEGIES.includes(String(config.strategy))) return `"strategy" is "${String(config.strategy)}"; use one of ${STRATEGIES.join(', ')}.`;
  for (const key of ['world', 'replay'] as const) {
    const v = config[key];
    if (v !== undefined && (typeof v !== 'string' || !exists(v))) return `"${key}" is ${JSON.stringify(v)}, which does not exist.`;
  }
  if (config.maxSteps !== undefined && !(Number.isInteger(config.maxSteps) && Number(config.maxSteps) > 0)) return `"maxSteps" must be a positive whole number, not ${JSON.stringify(config.maxSteps)}.`;
  return undefined;
}
