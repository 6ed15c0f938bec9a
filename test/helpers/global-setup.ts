import { ensurePrerequisites } from './prerequisites.js';
import {
  dropRunDatabases,
  dropStaleTestDatabases,
  ensureTemplate,
  newTestRunId,
} from './template-db.js';

/**
 * Before any test file: the machine's prerequisites (a vitest run started without `npm test`
 * checks them too), the migrated template, and this run's id, which every test database's name
 * carries so the teardown drops whatever the run left (a hook that timed out, a worker that
 * died), not only what each file's afterAll managed to drop.
 */
export default async function setup(): Promise<() => Promise<void>> {
  ensurePrerequisites();
  await dropStaleTestDatabases();
  process.env.EMUTRACK_TEST_TEMPLATE = await ensureTemplate();
  const runId = newTestRunId();
  process.env.EMUTRACK_TEST_RUN = runId;
  return async () => {
    if (process.env.EMUTRACK_KEEP_TEST_DBS === '1') return;
    await dropRunDatabases(runId);
  };
}
