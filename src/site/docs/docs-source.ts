import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { packageRoot } from '../../app/package-root.js';
import type { Config } from '../../config/config.js';
import type { DocsSource, OpenApiDocument } from '../../content/seed-docs.js';
import type { Db } from '../../db/db.js';
import type { Logger } from '../../log/logger.js';

/**
 * emutrack's own documentation: the README at the package root and the v2 API's OpenAPI
 * document, produced by building the API app (as `npm start` would) and reading its swagger.
 */
export async function loadDocsSource(deps: {
  db: Db;
  config: Config;
  logger: Logger;
}): Promise<DocsSource> {
  const readme = await readFile(path.join(packageRoot(), 'README.md'), 'utf8');
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
  return { readme, openapi };
}
