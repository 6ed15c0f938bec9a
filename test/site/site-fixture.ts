import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createAppPassword } from '../../src/domain/content/app-passwords.js';
import { setSiteRole, type SiteRole } from '../../src/domain/content/site-roles.js';
import { loadConfig, type Config } from '../../src/shared/config/config.js';
import type { Db } from '../../src/shared/db/db.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { buildSiteApp, type SiteApp } from '../../src/http/site/app.js';
import type { SiteModule } from '../../src/http/site/site-kit.js';
import { useTestDatabase } from '../helpers/test-db.js';

export interface SiteAccountFixture {
  id: number;
  username: string;
  /** `Basic ...` with a fresh application password. */
  basic: string;
  appPassword: string;
}

export interface SiteFixture {
  readonly app: SiteApp;
  readonly db: Db;
  /** The site's public address as the app was built with. */
  readonly url: string;
  /** The uploads directory (MEDIA_UPLOADS_DIR) with `uploads: true`, else ''. */
  readonly uploadsDir: string;
  account(username: string, role: SiteRole): Promise<SiteAccountFixture>;
  /** inject() with JSON parsed. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; auth?: SiteAccountFixture; headers?: Record<string, string> },
  ): Promise<{
    status: number; // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of a JSON answer
    body: any;
    headers: LightMyRequestResponse['headers'];
  }>;
}

export interface SiteOptions {
  /** Serve on a loopback port (for HTTP clients and the browser); default inject only. */
  listen?: boolean;
  /** Write the first-start documents. */
  seed?: boolean;
  /** Configuration on top of the test defaults. */
  env?: Record<string, string>;
  /** The site's modules; default every module. */
  modules?: (config: Config) => SiteModule[];
  /** A temporary uploads directory (MEDIA_UPLOADS_DIR), removed afterwards. */
  uploads?: boolean;
}

/**
 * A site app on its own test database (no first-start documents unless asked), with helpers to
 * make accounts of a site role with an application password and to call the REST API.
 */
export function useSite(options: SiteOptions = {}): SiteFixture {
  const database = useTestDatabase();
  let app: SiteApp | undefined;
  let url = 'http://site.test';
  let uploadsDir = '';
  beforeAll(async () => {
    if (options.uploads) uploadsDir = await mkdtemp(path.join(tmpdir(), 'emutrack-site-media-'));
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      SITE_SEED_DOCS: options.seed ? 'true' : 'false',
      ...(uploadsDir ? { MEDIA_UPLOADS_DIR: uploadsDir } : {}),
      ...options.env,
    });
    const logger = createLogger(process.env.SITE_TEST_LOG ?? 'silent');
    const modules = options.modules?.(config);
    if (options.listen) {
      // Reserve a port first so that the site knows its own address (links, Link headers).
      const probe = await buildSiteApp({
        db: database.current.db,
        config,
        logger,
        siteUrl: url,
        modules: [],
      });
      await probe.listen({ host: '127.0.0.1', port: 0 });
      const port = (probe.server.address() as { port: number }).port;
      await probe.close();
      url = `http://127.0.0.1:${port}`;
      app = await buildSiteApp({ db: database.current.db, config, logger, siteUrl: url, modules });
      await app.listen({ host: '127.0.0.1', port });
    } else {
      app = await buildSiteApp({ db: database.current.db, config, logger, siteUrl: url, modules });
    }
  });
  afterAll(async () => {
    await app?.close();
    if (uploadsDir) await rm(uploadsDir, { recursive: true, force: true });
  });
  const fixture: SiteFixture = {
    get app() {
      return app!;
    },
    get db() {
      return database.current.db;
    },
    get url() {
      return url;
    },
    get uploadsDir() {
      return uploadsDir;
    },
    async account(username, role) {
      const r = await database.current.db.query<{ id: string }>(
        `INSERT INTO users (username, password_hash) VALUES ($1, 'not-a-hash') RETURNING id`,
        [username],
      );
      const id = Number(r.rows[0]!.id);
      await setSiteRole(database.current.db, id, role);
      const { password } = await createAppPassword(database.current.db, {
        userId: id,
        name: 'tests',
      });
      return {
        id,
        username,
        appPassword: password,
        basic: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
      };
    },
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.auth) headers.authorization = o.auth.basic;
      const res = await app!.inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(o.body !== undefined ? { payload: o.body as object } : {}),
      });
      let body: unknown = res.body;
      try {
        body = JSON.parse(res.body);
      } catch {
        /* HTML or empty */
      }
      return { status: res.statusCode, body, headers: res.headers };
    },
  };
  return fixture;
}
