import { dropStaleTestDatabases, ensureTemplate } from './template-db.js';

export default async function setup(): Promise<void> {
  await dropStaleTestDatabases();
  process.env.EMUTRACK_TEST_TEMPLATE = await ensureTemplate();
}
