import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiServices } from '../app-context.js';
import type { WebAssets } from './assets/web-assets.js';
import type { WebView } from './web-request.js';

/**
 * What every page route is registered with: the web scope (its hooks count the page limit and
 * answer errors as pages), the API's services (the same readers, versions and caches as
 * /api/v2), the built assets, and the reader's view of a request.
 */
export interface WebRoutes {
  web: FastifyInstance;
  services: ApiServices;
  assets: WebAssets;
  view(request: FastifyRequest): WebView;
}
