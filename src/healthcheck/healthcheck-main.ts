import { loadConfigOrExit } from '../shared/app/server-entry.js';
import { checkHealth } from './healthcheck.js';

/** The containers' healthcheck command (see healthcheck.ts): exit 0 healthy, 1 not, 2 usage. */
const target = process.argv[2];
if (target !== 'api' && target !== 'site' && target !== 'worker') {
  process.stderr.write('usage: healthcheck-main.js api|site|worker\n');
  process.exit(2);
}
checkHealth(target, loadConfigOrExit()).then(
  (line) => process.stdout.write(`${line}\n`),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
