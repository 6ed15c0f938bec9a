/**
 * The repository's layout change (issue 25, item 4): where every folder of `src/` and `jobs/`
 * goes. Paths are relative to the repository root. An entry names a folder (everything under
 * it moves, files added later included) or one file; the longest matching entry wins, so a
 * file entry takes a file out of a folder that moves elsewhere. No `to` may lie under any
 * `from` (that is what makes a second run a no-op).
 *
 * The shape:
 * - `src/domain/*`  what the system knows: takes a db handle and plain data, nothing of HTTP or
 *                   BullMQ (eslint.config.js enforces it);
 * - `src/http/*`    the edges: the read API, OAuth, the documentation site, the account and
 *                   operators' pages (`/metrics` with its metrics), the session and CSRF they
 *                   share, the request quota;
 * - `src/worker/`   the BullMQ worker, its schedulers and, in `jobs/`, one file per job;
 * - `src/shared/*`  infrastructure every part uses: db, config, log, errors, time, io, the app
 *                   context and package root;
 * - `src/cli/`, `src/generator/`, `src/healthcheck/`  the other entry points.
 */
export interface PathMove {
  from: string;
  to: string;
}

export const PATH_MAP: readonly PathMove[] = [
  // The domain.
  { from: 'src/accounts', to: 'src/domain/accounts' },
  // Configuration into the accounts' settings: no HTTP in it (the CLI uses it too).
  { from: 'src/api/account-settings.ts', to: 'src/domain/accounts/account-settings.ts' },
  { from: 'src/circulation', to: 'src/domain/circulation' },
  { from: 'src/circulation-images', to: 'src/domain/circulation-images' },
  { from: 'src/content', to: 'src/domain/content' },
  { from: 'src/corrections', to: 'src/domain/corrections' },
  { from: 'src/emus', to: 'src/domain/emus' },
  { from: 'src/exports', to: 'src/domain/exports' },
  { from: 'src/history', to: 'src/domain/history' },
  { from: 'src/ingest', to: 'src/domain/ingest' },
  { from: 'src/media', to: 'src/domain/media' },
  { from: 'src/oauth', to: 'src/domain/oauth' },
  { from: 'src/oembed', to: 'src/domain/oembed' },
  { from: 'src/prediction', to: 'src/domain/prediction' },
  { from: 'src/records', to: 'src/domain/records' },
  { from: 'src/search', to: 'src/domain/search' },
  { from: 'src/templates', to: 'src/domain/templates' },
  { from: 'src/timetables', to: 'src/domain/timetables' },
  { from: 'src/trains', to: 'src/domain/trains' },
  { from: 'src/webhooks', to: 'src/domain/webhooks' },

  // The HTTP edges.
  { from: 'src/api', to: 'src/http/api' },
  // The API's kept pages are the read API's cache, not the records' domain.
  { from: 'src/records/page-cache.ts', to: 'src/http/api/page-cache.ts' },
  { from: 'src/api/oauth', to: 'src/http/oauth' },
  { from: 'src/site', to: 'src/http/site' },
  // The site's own edge (hooks, input limits): not a third `http` folder in src/http/site/.
  { from: 'src/site/http', to: 'src/http/site/edge' },
  { from: 'src/account-pages', to: 'src/http/account' },
  // The two account panels that lived with their features join the account pages.
  { from: 'src/api/webhooks-account-panel.ts', to: 'src/http/account/webhooks-account-panel.ts' },
  { from: 'src/api/oauth/account-oauth-panel.ts', to: 'src/http/account/oauth-account-panel.ts' },
  // The browser session and the forms' CSRF: shared by the API's pages, OAuth, the site's admin
  // pages and the operators' pages.
  { from: 'src/api/web-session.ts', to: 'src/http/session/web-session.ts' },
  { from: 'src/api/form-csrf.ts', to: 'src/http/session/form-csrf.ts' },
  { from: 'src/quota', to: 'src/http/quota' },
  { from: 'src/ops', to: 'src/http/ops' },
  // The Prometheus metrics exist for GET /metrics, which the operators' edge serves (they read
  // the worker's queues, which shared code must not know of).
  { from: 'src/metrics', to: 'src/http/ops/metrics' },
  { from: 'src/http-security-headers.ts', to: 'src/http/security-headers.ts' },
  { from: 'src/app/cjk-web-font.ts', to: 'src/http/cjk-web-font.ts' },

  // The worker and its jobs, together.
  { from: 'src/queue', to: 'src/worker' },
  { from: 'jobs', to: 'src/worker/jobs' },

  // The container healthcheck: its own entry point (it asks Redis, the API and the site).
  { from: 'src/ops/healthcheck.ts', to: 'src/healthcheck/healthcheck.ts' },
  { from: 'src/ops/healthcheck-main.ts', to: 'src/healthcheck/healthcheck-main.ts' },

  // Shared infrastructure.
  { from: 'src/app', to: 'src/shared/app' },
  // One version reader (data_versions) and one bounded byte cache, for the API and the site.
  { from: 'src/cache', to: 'src/shared/cache' },
  { from: 'src/config', to: 'src/shared/config' },
  { from: 'src/db', to: 'src/shared/db' },
  { from: 'src/errors', to: 'src/shared/errors' },
  { from: 'src/io', to: 'src/shared/io' },
  { from: 'src/log', to: 'src/shared/log' },
  { from: 'src/time', to: 'src/shared/time' },
];

/**
 * Edits no path resolver can make (a folder that no longer exists named on its own), applied
 * after the moves and rewrites to the file at its new path, each only while `from` is present.
 */
export interface Fixup {
  file: string;
  from: string;
  to: string;
}

export const FIXUPS: readonly Fixup[] = [
  { file: 'tsconfig.json', from: '"jobs", ', to: '' },
  { file: 'tsconfig.build.json', from: '"jobs", ', to: '' },
  { file: 'Dockerfile', from: 'COPY jobs ./jobs\n', to: '' },
  { file: 'test/errors/error-codes.test.ts', from: "of ['src', 'jobs']", to: "of ['src']" },
  {
    file: 'test/errors/error-codes.test.ts',
    from: 'lists every error class of src/ and src/worker/jobs/',
    to: 'lists every error class of src/ (the jobs included)',
  },
];
