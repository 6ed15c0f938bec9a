import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { packageRoot } from '../../../shared/app/package-root.js';
import type { Config } from '../../../shared/config/config.js';
import {
  manualChapter,
  type DocsSource,
  type ManualChapter,
  type OpenApiDocument,
} from '../../../domain/content/seed-docs.js';
import type { Db } from '../../../shared/db/db.js';
import type { Logger } from '../../../shared/log/logger.js';

/**
 * The manual's chapters in reading order (file names in `docs/` without `.md`); any other page
 * in `docs/` follows them in name order, so a new topic page is in the manual without a change here.
 */
export const MANUAL_ORDER: readonly string[] = [
  'getting-started',
  'architecture',
  'data-formats',
  'circulations',
  'api',
  'api-clients',
  'stale-days-and-caching',
  'corrections-and-input-rules',
  'change-feed-and-webhooks',
  'sources',
  'accounts',
  'oauth',
  'operations',
  'operations-setup',
  'site',
  'site-permissions',
  'site-wordpress-fidelity',
  'security',
  'security-limits',
  'performance',
  'compatibility',
];

/** The chapters of the manual: every `docs/*.md`, in MANUAL_ORDER and then by name. */
export async function readManualChapters(
  dir: string = path.join(packageRoot(), 'docs'),
): Promise<ManualChapter[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.md')).map((n) => n.slice(0, -3));
  const rank = (n: string) => {
    const i = MANUAL_ORDER.indexOf(n);
    return i === -1 ? MANUAL_ORDER.length : i;
  };
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return Promise.all(
    names.map(async (name) =>
      manualChapter(name, await readFile(path.join(dir, `${name}.md`), 'utf8')),
    ),
  );
}

/**
 * emutrack's own documentation: the manual (`docs/*.md`) and the v2 API's OpenAPI document,
 * produced by building the API app (as `npm start` would) and reading its swagger.
 */
export async function loadDocsSource(deps: {
  db: Db;
  config: Config;
  logger: Logger;
}): Promise<DocsSource> {
  const chapters = await readManualChapters();
  let openapi: OpenApiDocument | undefined;
  try {
    const { buildApp } = await import('../../api/app.js');
    const api = await buildApp({
      db: deps.db,
      config: deps.config,
      logger: deps.logger.child({ part: 'docs' }),
    });
    try {
      await api.ready();
      openapi = (api as unknown as { swagger(): OpenApiDocument }).swagger();
    } finally {
      await api.close();
    }
  } catch (err) {
    deps.logger.warn(
      { err },
      'the API reference could not be generated; the site starts without it',
    );
  }
  return { chapters, openapi };
}
