/**
 * One worker process for the scale-out test: `npm run worker` (runWorker: the BullMQ workers,
 * its SIGTERM handling) on the configured database and queue prefix. Prints "ready".
 */
import { openAppContext } from '../../../src/shared/app/app-context.js';
import { loadConfig } from '../../../src/shared/config/config.js';
import { runWorker } from '../../../src/worker/run-worker.js';

await runWorker(await openAppContext({ config: loadConfig(), migrate: false }));
process.stdout.write('ready\n');
