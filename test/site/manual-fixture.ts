import { beforeAll } from 'vitest';
import { loadConfig } from '../../src/shared/config/config.js';
import { seedDocs, type DocsSource } from '../../src/domain/content/seed-docs.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { loadDocsSource } from '../../src/http/site/docs/docs-source.js';
import { useSite, type SiteFixture, type SiteOptions } from './site-fixture.js';

export interface ManualSite {
  site: SiteFixture;
  /** What was written: the manual's chapters (docs/*.md) and the OpenAPI document. */
  readonly source: DocsSource;
  /** Every page the site's first start writes, as paths (`/manual/api/`), top pages first. */
  readonly pagePaths: string[];
}

/**
 * A site with emutrack's own documentation written as on a first start (the repository's
 * docs/*.md and the API's OpenAPI document), and the paths of all its pages.
 */
export function useManualSite(options: SiteOptions = {}): ManualSite {
  const site = useSite(options);
  let source: DocsSource | undefined;
  let pagePaths: string[] = [];
  beforeAll(async () => {
    source = await loadDocsSource({
      db: site.db,
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      logger: createLogger('silent'),
    });
    await seedDocs(site.db, source);
    const pages = await site.call('GET', '/wp-json/wp/v2/pages?per_page=100&_fields=link,parent');
    pagePaths = (pages.body as { link: string; parent: number }[])
      .sort((a, b) => a.parent - b.parent)
      .map((p) => new URL(p.link).pathname);
  }, 120_000);
  return {
    site,
    get source() {
      return source!;
    },
    get pagePaths() {
      return pagePaths;
    },
  };
}
