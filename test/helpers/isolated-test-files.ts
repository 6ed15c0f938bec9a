/**
 * Test files that run each in a fresh module graph. Every other file shares its worker's modules
 * with the files run before it in that worker (vitest's `isolate: false`): loading the app's module
 * graph once per worker instead of once per file saves most of the suite's import time.
 *
 * A file belongs here when it changes what the next file would see: it mocks a module or a global,
 * fakes timers, writes `process.env`, captures stdout through the CLI runner, or drives
 * `@wordpress/api-fetch` (a singleton whose middlewares, root URL and nonce stay registered).
 * `isolated-test-files.test.ts` finds such files by those marks (in the file or in a test helper
 * it imports) and fails when one is missing from this list.
 */
export const ISOLATED_TEST_FILES: readonly string[] = [
  'test/accounts/cli.test.ts',
  'test/api/request-logger.test.ts',
  'test/circulation/cli.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/commands-corrections.test.ts',
  'test/cli/export-refused-and-stale-status.test.ts',
  'test/cli/ops-commands.test.ts',
  'test/cli/source-commands.test.ts',
  'test/fault/disk-full.test.ts',
  'test/generator/next-commands.test.ts',
  'test/ingest/formats/formats.test.ts',
  'test/oauth/authorize-user-scopes.test.ts',
  'test/oauth/cli.test.ts',
  'test/ops/sources-page.test.ts',
  'test/quota/redis-quota-store.test.ts',
  'test/site/clients.test.ts',
  'test/site/media/media-clients.test.ts',
  'test/site/search.test.ts',
  'test/time/interval-task.test.ts',
  'test/worker/cron-ticker.test.ts',
  'test/worker/source-pulls.test.ts',
];
