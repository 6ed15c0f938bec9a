import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createAppPassword } from '../../../src/content/app-passwords.js';
import { setSiteRole, type SiteRole } from '../../../src/content/site-roles.js';
import { loadConfig, type Config } from '../../../src/config/config.js';
import type { Db } from '../../../src/db/db.js';
import { createLogger } from '../../../src/log/logger.js';
import { buildSiteApp, type SiteApp } from '../../../src/site/app.js';
import { contentModule } from '../../../src/site/content/content-module.js';
import {
  createMediaModule,
  type MediaModuleOptions,
} from '../../../src/site/media/media-module.js';
import type { SiteModule } from '../../../src/site/site-kit.js';
import { useTestDatabase } from '../../helpers/test-db.js';

export interface SiteAccount {
  id: number;
  username: string;
  password: string;
  /** `Basic ...` with an application password. */
  basic: string;
}

export interface MediaSite {
  readonly app: SiteApp;
  readonly db: Db;
  readonly url: string;
  readonly uploadsDir: string;
  account(username: string, role: SiteRole): Promise<SiteAccount>;
}

export interface MediaSiteOptions {
  /** Serve on a loopback port (for HTTP clients and the browser); default inject only. */
  listen?: boolean;
  env?: Record<string, string>;
  media?: Omit<MediaModuleOptions, 'storage'>;
  /** Modules after content and media (templates, oEmbed). */
  extraModules?: (config: Config) => SiteModule[];
}

/**
 * A site with the content and media modules on its own test database and its own uploads
 * directory (removed afterwards), optionally listening on 127.0.0.1.
 */
export function useMediaSite(options: MediaSiteOptions = {}): MediaSite {
  const database = useTestDatabase();
  let app: SiteApp | undefined;
  let url = 'http://site.test';
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'emutrack-site-media-'));
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      SITE_SEED_DOCS: 'false',
      MEDIA_UPLOADS_DIR: dir,
      ...options.env,
    });
    const logger = createLogger('silent');
    const modules = () => [
      contentModule,
      createMediaModule(options.media),
      ...(options.extraModules?.(config) ?? []),
    ];
    const db = database.current.db;
    if (options.listen) {
      const probe = await buildSiteApp({ db, config, logger, siteUrl: url, modules: [] });
      await probe.listen({ host: '127.0.0.1', port: 0 });
      const port = (probe.server.address() as { port: number }).port;
      await probe.close();
      url = `http://127.0.0.1:${port}`;
      app = await buildSiteApp({ db, config, logger, siteUrl: url, modules: modules() });
      await app.listen({ host: '127.0.0.1', port });
    } else {
      app = await buildSiteApp({ db, config, logger, siteUrl: url, modules: modules() });
    }
  });
  afterAll(async () => {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return {
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
      return dir;
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
        password,
        basic: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
      };
    },
  };
}

/** A multipart/form-data body as fetch would send it: the bytes and the Content-Type with its boundary. */
export async function multipartBody(
  fields: Record<string, string>,
  file: { name: string; type: string; bytes: Buffer },
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}
