// Command lines for the integrated terminal. Free of `vscode` so the unit tests can run it.

/** Quotes one argument for a POSIX shell: plain words stay as they are, the rest in '…'. */
export function quotePosix(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.split("'").join(`'\\''`)}'`;
}

/** Quotes one argument for PowerShell (VS Code's default terminal on Windows). */
export function quotePowerShell(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./\\-]+$/.test(arg)) return arg;
  return `'${arg.split("'").join("''")}'`;
}

/** The line typed into the terminal to run `argv` (program first). */
export function commandLine(argv: string[], platform: NodeJS.Platform): string {
  if (platform === 'win32') return ['&', ...argv.map(quotePowerShell)].join(' ');
  return argv.map(quotePosix).join(' ');
}

/** `opal run FILE` with the program's world file, when there is one (`NAME.world.toml`). */
export function runArgs(opal: string, file: string, worldExists: (p: string) => boolean): string[] {
  const world = worldFile(file);
  return world && worldExists(world) ? [opal, 'run', file, '--world', world] : [opal, 'run', file];
}

/** `NAME.world.toml` beside `NAME.opal`, as the CLI looks for it. */
export function worldFile(file: string): string | undefined {
  return file.endsWith('.opal') ? `${file.slice(0, -'.opal'.length)}.world.toml` : undefined;
}
