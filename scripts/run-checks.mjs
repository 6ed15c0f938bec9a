// Runs the given commands two at a time (the machine's two cores), each with its output kept
// and printed only when it fails; exits non-zero when any failed. `npm test`'s typecheck and
// lint are independent of each other, and one after the other they took two minutes of the
// suite's fifteen.
import { spawn } from 'node:child_process';
import process from 'node:process';

const commands = process.argv.slice(2);
const AT_ONCE = 2;
let failed = 0;

function run(command) {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      if (code !== 0) {
        failed++;
        process.stderr.write(`${command}: exit ${code}\n${out}`);
      }
      resolve();
    });
  });
}

const queue = [...commands];
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    while (queue.length > 0) await run(queue.shift());
  }),
);
process.exit(failed > 0 ? 1 : 0);
