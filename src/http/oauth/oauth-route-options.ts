import type { OAuthEdge } from './oauth-edge.js';

/** What the OAuth route plugins are registered with. */
export interface OAuthRouteOptions {
  edge: OAuthEdge;
}
