/**
 * One worker process for the scale-out test: `npm run worker` (runWorker: the BullMQ workers,
 * its SIGTERM handling) on the configured database and queue prefix. Prints "ready".
 */
import { openAppContext } from '../../../src/app/app-context.js';
import { loadConfig } from '../../../src/config/config.js';
import { runWorker } from '../../../src/queue/run-worker.js';

await runWorker(await openAppContext({ config: loadConfig(), migrate: false }));
process.stdout.write('ready\n');
