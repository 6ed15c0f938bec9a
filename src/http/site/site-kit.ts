import type { FastifyInstance } from 'fastify';
import type { Config } from '../../shared/config/config.js';
import type { Db } from '../../shared/db/db.js';
import type { Logger } from '../../shared/log/logger.js';
import type { RestServer } from './rest/rest-server.js';
import type { RestRouteRegistry } from './rest/route-registry.js';
import type { SiteUrls } from './site-urls.js';
import type { SiteAuthenticator } from './auth/site-authenticator.js';
import type { SiteResponseCache } from './cache/site-response-cache.js';
import type { SiteTheme } from './theme/site-theme.js';
import type { SitePages } from './theme/page-routes.js';
import type { PageFontSubsets } from './theme/page-font-subset.js';
import type { ScheduledPublisher } from '../../domain/content/scheduled-publishing.js';

/**
 * What a site module gets to plug itself in: the REST route registry (register_rest_route),
 * the HTTP app for non-REST paths (files, HTML), the theme (to render HTML pages through its own
 * templates), and the shared services. Modules register during buildSiteApp, before the index
 * routes are added.
 */
export interface SiteKit {
  db: Db;
  config: Config;
  logger: Logger;
  /** Milliseconds since the epoch (tests inject time). */
  clock: () => number;
  urls: SiteUrls;
  rest: RestRouteRegistry;
  server: RestServer;
  /** The Fastify app: add non-REST routes (e.g. `/wp-content/uploads/*`) here. */
  http: FastifyInstance;
  theme: SiteTheme;
  /** Renders and sends HTML pages through the theme (front page, navigation). */
  pages: SitePages;
  auth: SiteAuthenticator;
  /** Prepared REST responses for anonymous reads, kept while the site content is unchanged. */
  responses: SiteResponseCache;
  /** The scheduled publishing job (tell it when an item is scheduled). */
  publisher: ScheduledPublisher;
  /** The pages' own font subsets (page-font-subset.ts). */
  pageFonts: PageFontSubsets;
}

/** A piece of the site (content, media, templates, oEmbed, ...). */
export interface SiteModule {
  name: string;
  register(kit: SiteKit): void | Promise<void>;
}
