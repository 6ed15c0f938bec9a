import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../shared/config/config.js';
import type { Db } from '../../shared/db/db.js';
import type { Logger } from '../../shared/log/logger.js';
import { issuerOf } from '../../domain/oauth/discovery.js';
import type { SigningKeyStore } from '../../domain/oauth/signing-keys.js';
import { signingKeysFromConfig } from '../../domain/oauth/signing-keys-config.js';
import type { Clock } from '../quota/quota-store.js';
import { OAuthRateLimiter } from './oauth-rate-limiter.js';

export interface OAuthEdgeDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** Milliseconds since the epoch. Default Date.now; tests move time. */
  clock?: Clock;
  /** The quota's Redis: rate-limit buckets are shared through it when given. */
  redis?: Redis;
  /** A ready-made signing-key store (tests); default from OAUTH_KEY_SECRET / DATA_DIR. */
  keys?: SigningKeyStore;
}

/** What the OAuth routes share (made once per app). */
export interface OAuthEdge {
  db: Db;
  config: Config;
  logger: Logger;
  /** PUBLIC_URL as the issuer identifier. */
  issuer: string;
  keys: SigningKeyStore;
  authorizeLimit: OAuthRateLimiter;
  tokenLimit: OAuthRateLimiter;
  now(): Date;
  /**
   * Call after revoking tokens from a request: the API's short credential cache forgets what it
   * knew, so that the revoked tokens fail from the next request on.
   */
  credentialsChanged(request: FastifyRequest): void;
}

export function createOAuthEdge(deps: OAuthEdgeDeps): OAuthEdge {
  const clock = deps.clock ?? Date.now;
  const { config, logger } = deps;
  const limiter = (name: string, perMinute: number) =>
    new OAuthRateLimiter({
      name,
      perMinute,
      redis: deps.redis,
      keyPrefix: config.QUOTA_KEY_PREFIX,
      logger,
      clock: deps.clock,
    });
  return {
    db: deps.db,
    config,
    logger,
    issuer: issuerOf(config.PUBLIC_URL),
    keys:
      deps.keys ?? signingKeysFromConfig(deps.db, config, { warn: (m) => logger.warn(m), clock }),
    authorizeLimit: limiter('authorize', config.OAUTH_AUTHORIZE_RATE_PER_MINUTE),
    tokenLimit: limiter('token', config.OAUTH_TOKEN_RATE_PER_MINUTE),
    now: () => new Date(clock()),
    credentialsChanged: (request) => request.server.emutrackEdge?.credentials.clear(),
  };
}
