// Packages a per-platform .vsix: node scripts/package.mjs TARGET BINARY
//   TARGET: a VS Code platform (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64, …)
//   BINARY: the `opal` built for that platform (cargo build --release -p opal-cli --target …)
// The binary is checked to be of the target's kind (ELF, Mach-O, PE), copied to server/, stripped
// (`strip`, or `llvm-strip` for another platform's binary when it is installed), and bundled by
// `vsce package --target TARGET` into dist/opal-TARGET.vsix. Run `npm run build` first.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const TARGETS = ['linux-x64', 'linux-arm64', 'linux-armhf', 'alpine-x64', 'alpine-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];
const [target, binary] = process.argv.slice(2);
const fail = (m) => {
  console.error(`package: ${m}`);
  process.exit(1);
};
if (!TARGETS.includes(target ?? '')) fail(`usage: node scripts/package.mjs TARGET BINARY (TARGET one of ${TARGETS.join(', ')})`);
if (!binary || !fs.existsSync(binary)) fail(`no binary at ${binary ?? '(missing argument)'}`);
if (!fs.existsSync('dist/extension.js')) fail('dist/extension.js is missing: run `npm run build` first');

const os = target.split('-')[0];
const head = Buffer.alloc(4);
const fd = fs.openSync(binary, 'r');
fs.readSync(fd, head, 0, 4, 0);
fs.closeSync(fd);
const kind = head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) ? 'elf' : head.subarray(0, 2).toString('latin1') === 'MZ' ? 'pe' : [0xfeedfacf, 0xcffaedfe, 0xcafebabe, 0xbebafeca].includes(head.readUInt32BE(0)) ? 'macho' : 'unknown';
const want = os === 'win32' ? 'pe' : os === 'darwin' ? 'macho' : 'elf';
if (kind !== want) fail(`${binary} is ${kind}, but ${target} needs ${want}`);

const exe = os === 'win32' ? 'opal.exe' : 'opal';
// server/ holds exactly one binary, the target's (BINARY may itself be server/opal).
const staged = path.join('dist', `.opal-${target}`);
fs.mkdirSync('dist', { recursive: true });
fs.copyFileSync(binary, staged);
fs.rmSync('server', { recursive: true, force: true });
fs.mkdirSync('server');
const dest = path.join('server', exe);
fs.renameSync(staged, dest);
fs.chmodSync(dest, 0o755);
const before = fs.statSync(dest).size;
const native = (process.platform === 'linux' && os !== 'darwin' && os !== 'win32' && target.endsWith(process.arch === 'x64' ? 'x64' : process.arch)) || (process.platform === os);
const strippers = native ? ['strip', 'llvm-strip'] : ['llvm-strip'];
let stripped = false;
for (const s of strippers) {
  if (spawnSync(s, ['--version'], { stdio: 'ignore' }).status !== 0) continue;
  execFileSync(s, [dest], { stdio: 'inherit' });
  stripped = true;
  break;
}
const after = fs.statSync(dest).size;
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
if (stripped) console.log(`package: ${dest} stripped ${mb(before)} → ${mb(after)}`);
else console.warn(`package: WARNING: no strip for ${target} here (tried ${strippers.join(', ')}); ${dest} bundled unstripped (${mb(after)})`);

fs.mkdirSync('dist', { recursive: true });
const out = `dist/opal-${target}.vsix`;
execFileSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['vsce', 'package', '--target', target, '--no-dependencies', '--out', out], { stdio: 'inherit' });
console.log(`package: ${out} (${mb(fs.statSync(out).size)})`);
