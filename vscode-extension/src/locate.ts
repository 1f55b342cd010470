// Finding the `opal` binary: the setting, else the binary bundled in the extension, else `opal`
// on PATH. Free of `vscode` so the unit tests can run it under plain Node.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Env {
  /** Whether `p` is an executable regular file. */
  isExecutable(p: string): boolean;
  pathVar: string | undefined;
  home: string;
  platform: NodeJS.Platform;
}

export const realEnv = (): Env => ({
  isExecutable: (p) => {
    try {
      if (!fs.statSync(p).isFile()) return false;
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  pathVar: process.env.PATH,
  home: os.homedir(),
  platform: process.platform,
});

export type Found = { path: string; source: 'setting' | 'bundled' | 'PATH' };
export type Missing = { error: string; fix: string };

const exe = (name: string, platform: NodeJS.Platform) => (platform === 'win32' ? `${name}.exe` : name);

/** Expands `~` and `${workspaceFolder}` in a path from the settings. */
export function expand(setting: string, env: Env, workspaceFolder: string | undefined): string {
  let p = setting.trim();
  if (p === '~' || p.startsWith('~/')) p = path.join(env.home, p.slice(1));
  if (workspaceFolder !== undefined) p = p.split('${workspaceFolder}').join(workspaceFolder);
  return p;
}

/**
 * Where the `opal` binary is. `setting` is `opal.server.path` (or `opal.debugger.path`),
 * `settingName` its name for messages, `extensionDir` the installed extension's folder.
 */
export function locateOpal(setting: string | undefined, settingName: string, extensionDir: string, env: Env, workspaceFolder?: string): Found | Missing {
  if (setting && setting.trim() !== '') {
    const p = expand(setting, env, workspaceFolder);
    if (p.includes('${workspaceFolder}')) {
      return { error: `\`${settingName}\` is "${setting}", but no folder is open to expand \${workspaceFolder}.`, fix: 'Open the folder, or set an absolute path.' };
    }
    if (!path.isAbsolute(p)) {
      const onPath = searchPath(p, env);
      if (onPath) return { path: onPath, source: 'setting' };
      return { error: `\`${settingName}\` is "${setting}", which is not an absolute path and is not on PATH.`, fix: `Set \`${settingName}\` to the full path of the opal binary (e.g. target/release/opal), or clear it to use the bundled one.` };
    }
    if (env.isExecutable(p)) return { path: p, source: 'setting' };
    return { error: `\`${settingName}\` is "${setting}", but no executable file is there.`, fix: `Build it with \`cargo build --release\` in the OPAL repository, or correct \`${settingName}\`.` };
  }
  const bundled = path.join(extensionDir, 'server', exe('opal', env.platform));
  if (env.isExecutable(bundled)) return { path: bundled, source: 'bundled' };
  const onPath = searchPath(exe('opal', env.platform), env);
  if (onPath) return { path: onPath, source: 'PATH' };
  return {
    error: 'The OPAL language server (the `opal` binary) was not found: it is not bundled with this extension and not on PATH.',
    fix: 'Install it with `cargo install --path cli` from the OPAL repository, or set `opal.server.path` to the binary.',
  };
}

function searchPath(name: string, env: Env): string | undefined {
  if (name.includes('/') || name.includes('\\')) return undefined;
  const sep = env.platform === 'win32' ? ';' : ':';
  for (const dir of (env.pathVar ?? '').split(sep)) {
    if (dir === '') continue;
    const p = path.join(dir, name);
    if (env.isExecutable(p)) return p;
  }
  return undefined;
}
