// Runs a command with every Node process's clock moved to a given moment (then ticking), so the
// suite shows it does not depend on the day it runs. Usage:
//   node test/helpers/run-with-moved-clock.mjs 2031-02-28T16:30:00Z -- vitest run test/jobs
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [target, sep, cmd, ...args] = process.argv.slice(2);
const at = Date.parse(target ?? '');
if (!Number.isFinite(at) || sep !== '--' || !cmd) {
  process.stderr.write('usage: run-with-moved-clock.mjs <ISO moment> -- <command> [args...]\n');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const loader = pathToFileURL(path.join(here, 'moved-clock.mjs')).href;
const env = {
  ...process.env,
  EMUTRACK_CLOCK_OFFSET_MS: String(at - Date.now()),
  NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', `--import=${loader}`].join(' ').trim(),
};
const child = spawn(cmd, args, { stdio: 'inherit', env, shell: false });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
