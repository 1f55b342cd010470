// The `opal` task type: `opal run FILE` and `opal check FILE` as tasks whose output the `$opal`
// problem matcher reads. Free of `vscode` for the unit tests.
import * as path from 'node:path';

export interface OpalTaskDefinition {
  type: 'opal';
  command: 'run' | 'check';
  file: string;
  world?: string;
  args?: string[];
}

export function isOpalTask(d: { type: string; [k: string]: unknown }): d is OpalTaskDefinition & { [k: string]: unknown } {
  return d.type === 'opal' && (d.command === 'run' || d.command === 'check') && typeof d.file === 'string' && d.file !== '';
}

/** The task's name as the Run Task list shows it. */
export function taskName(d: OpalTaskDefinition): string {
  return `${d.command} ${path.basename(d.file)}`;
}

/** The argv after the binary. `run` uses the world file beside the program when it exists. */
export function taskArgs(d: OpalTaskDefinition, exists: (p: string) => boolean): string[] {
  const args: string[] = [d.command, d.file];
  if (d.command === 'run') {
    const world = d.world ?? d.file.replace(/\.opal$/, '.world.toml');
    if (d.world !== undefined || (world !== d.file && exists(world))) args.push('--world', world);
  }
  return [...args, ...(d.args ?? [])];
}
