import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadConfig } from '../../src/shared/config/config.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { buildSiteApp } from '../../src/http/site/app.js';
import { contentModule } from '../../src/http/site/content/content-module.js';
import { createMediaModule } from '../../src/http/site/media/media-module.js';
import { peakRssBytes } from '../peak-rss.js';

/**
 * The uploads benchmark's server process: the documentation site (content and media modules)
 * on 127.0.0.1, and beside it the reference: a bare Node server streaming the same files from
 * the same directory. Its peak RSS is the figure the issue bounds. Talks to the parent over IPC:
 * sends {site, reference} when listening, answers "rss" with {peakRss}, closes on "exit".
 * argv: <database url> <uploads dir>
 */
const [dbUrl, uploadsDir] = process.argv.slice(2) as [string, string];
const db = createPostgresDb({ connectionString: dbUrl, max: 4 });
const config = loadConfig({
  LOG_LEVEL: 'silent',
  SITE_SEED_DOCS: 'false',
  MEDIA_UPLOADS_DIR: uploadsDir,
});
const app = await buildSiteApp({
  db,
  config,
  logger: createLogger('silent'),
  siteUrl: 'http://127.0.0.1',
  modules: [contentModule, createMediaModule()],
});
await app.listen({ host: '127.0.0.1', port: 0 });

const reference = http.createServer((request, response) => {
  const rel = decodeURIComponent(
    (request.url ?? '/').split('?')[0]!.replace(/^\/wp-content\/uploads\//, ''),
  );
  const file = path.join(uploadsDir, rel);
  if (rel.includes('..')) {
    response.writeHead(404).end();
    return;
  }
  stat(file).then(
    (s) => {
      response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': s.size });
      createReadStream(file).pipe(response);
    },
    () => response.writeHead(404).end(),
  );
});
await new Promise<void>((resolve) => reference.listen(0, '127.0.0.1', resolve));

const port = (s: { address(): AddressInfo | string | null }) => (s.address() as AddressInfo).port;
process.send!({
  site: `http://127.0.0.1:${port(app.server)}`,
  reference: `http://127.0.0.1:${port(reference)}`,
});
process.on('message', (message) => {
  if (message === 'rss') {
    void peakRssBytes().then((peakRss) => process.send!({ peakRss }));
  } else if (message === 'exit') {
    reference.close();
    void app
      .close()
      .then(() => db.close())
      .then(() => process.exit(0));
  }
});
