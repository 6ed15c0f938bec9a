import { hash } from 'node:crypto';
import { Lru } from '../../shared/cache/lru.js';
import {
  authenticateSecret,
  type AuthenticationResult,
  type Credential,
} from '../../domain/accounts/credentials.js';
import { ANONYMOUS_SCOPES } from '../../domain/accounts/scopes.js';
import type { User } from '../../domain/accounts/users.js';
import type { Queryable } from '../../shared/db/db.js';
import type { Clock } from '../quota/quota-store.js';

/** Who makes a request, as the API edge decided it (see v2-edge.ts). */
export type Caller =
  | {
      kind: 'anonymous';
      /** The client address (X-Forwarded-For only through TRUSTED_PROXIES). */
      address: string;
      scopes: readonly string[];
    }
  | {
      kind: 'credential';
      address: string;
      user: User;
      credential: Credential;
      /** The credential's scopes. */
      scopes: readonly string[];
      /** Where the secret came from. */
      via: 'bearer' | 'cookie';
    };

export type SignedInCaller = Extract<Caller, { kind: 'credential' }>;

export function anonymousCaller(address: string): Caller {
  return { kind: 'anonymous', address, scopes: ANONYMOUS_SCOPES };
}

export interface CredentialCacheOptions {
  /**
   * How long an answer (good or bad) is used as it is, in ms. Default 500. Between this and
   * twice it (at most 950 ms), the answer is still used while one query refreshes it in the
   * background; past that, requests wait for a fresh one. So a revocation or ban made anywhere
   * (another API process, the CLI) is seen within a second, and a client's steady stream of
   * requests never waits on the database.
   */
  ttlMs?: number;
  /** Answers kept. Default 10,000. */
  max?: number;
  clock?: Clock;
}

interface CachedAnswer {
  result: AuthenticationResult;
  /** When the query that gave it started (ms). */
  at: number;
}

/**
 * Authenticates secrets through the accounts domain with a short-lived cache keyed by the
 * secret's SHA-256 (the cache never keeps the secret; only the connection it came on does, see
 * keyOn). Times (expiry, activeFrom) are checked again on every hit, so a cached credential
 * expires on the second.
 */
export class CredentialCache {
  private readonly cache: Lru<string, CachedAnswer>;
  private readonly freshMs: number;
  private readonly usableMs: number;
  private readonly clock: Clock;
  /** Bumped by clear(): lookups started before a clear may not fill the cache. */
  private generation = 0;
  /** A connection's last secret and its hash (keyOn). */
  private readonly keysByConnection = new WeakMap<object, { secret: string; key: string }>();
  /** Lookups under way: concurrent requests with one key share one query. */
  private readonly inflight = new Map<string, Promise<AuthenticationResult>>();

  constructor(
    private readonly db: Queryable,
    options: CredentialCacheOptions = {},
  ) {
    this.freshMs = options.ttlMs ?? 500;
    this.usableMs = Math.min(2 * this.freshMs, 950);
    this.clock = options.clock ?? Date.now;
    this.cache = new Lru({ maxEntries: options.max ?? 10_000 });
  }

  async authenticate(secret: string, connection?: object): Promise<AuthenticationResult> {
    return (
      this.peek(secret, connection) ??
      this.lookup(this.keyOn(secret, connection), secret, this.clock())
    );
  }

  /**
   * The answer for `secret` when one is cached and still usable, at once; else undefined (ask
   * `authenticate`). A usable but not fresh answer starts its refresh, as authenticate does.
   */
  peek(secret: string, connection?: object): AuthenticationResult | undefined {
    const key = this.keyOn(secret, connection);
    const now = this.clock();
    const hit = this.cache.get(key);
    const age = hit ? now - hit.at : Infinity;
    if (hit && age < this.freshMs) return recheckTimes(hit.result, now);
    if (hit && age < this.usableMs) {
      // Refresh behind the answer: errors leave the old one until it is no longer usable.
      this.lookup(key, secret, now).catch(() => undefined);
      return recheckTimes(hit.result, now);
    }
    return undefined;
  }

  private lookup(key: string, secret: string, now: number): Promise<AuthenticationResult> {
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const lookup = authenticateSecret(this.db, secret, new Date(now))
      .then((result) => {
        if (generation === this.generation) this.cache.set(key, { result, at: now });
        return result;
      })
      .finally(() => {
        if (this.inflight.get(key) === lookup) this.inflight.delete(key);
      });
    this.inflight.set(key, lookup);
    return lookup;
  }

  /**
   * The secret's hash, remembered for the connection it came on: a client sends the same
   * credential on every request of a keep-alive connection, and hashing it each time was most
   * of what an authenticated request cost more than an anonymous one. The secret is kept with
   * its connection (a WeakMap entry, gone with the socket), no longer than the connection holds
   * it anyway.
   */
  private keyOn(secret: string, connection: object | undefined): string {
    if (connection === undefined) return keyOf(secret);
    const last = this.keysByConnection.get(connection);
    if (last !== undefined && last.secret === secret) return last.key;
    const key = keyOf(secret);
    this.keysByConnection.set(connection, { secret, key });
    return key;
  }

  /** Forgets every answer: called after a revocation or ban made through this process. */
  clear(): void {
    this.generation++;
    this.cache.clear();
    this.inflight.clear();
  }
}

/** The cache key of a secret: its SHA-256 (one call: a fresh Hash object per request costs more). */
function keyOf(secret: string): string {
  return hash('sha256', secret, 'base64');
}

function recheckTimes(result: AuthenticationResult, now: number): AuthenticationResult {
  if (!result.ok) return result;
  const { credential } = result;
  if (credential.expiresAt.getTime() <= now) return { ok: false, reason: 'expired', credential };
  if (credential.activeFrom.getTime() > now) return { ok: false, reason: 'not_active', credential };
  return result;
}
