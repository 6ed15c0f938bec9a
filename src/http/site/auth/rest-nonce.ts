import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../../shared/db/db.js';

const HALF_DAY_MS = 12 * 3600 * 1000;

/**
 * WordPress's nonces: an HMAC of the action, the user and their session, for the current
 * half-day "tick"; one from the previous tick is still accepted (a nonce lives 12 to 24 hours).
 * The key is the site's own, made once and kept in site_options, so every site process agrees.
 */
export class RestNonces {
  constructor(
    private readonly key: Buffer,
    private readonly clock: () => number = Date.now,
  ) {}

  static async load(db: Queryable): Promise<RestNonces> {
    await db.query(
      `INSERT INTO site_options (name, value) VALUES ('nonce_key', to_jsonb($1::text)) ON CONFLICT (name) DO NOTHING`,
      [randomBytes(32).toString('base64url')],
    );
    const r = await db.query<{ value: string }>(
      `SELECT value FROM site_options WHERE name = 'nonce_key'`,
    );
    return new RestNonces(Buffer.from(r.rows[0]!.value, 'base64url'));
  }

  private tick(): number {
    return Math.ceil(this.clock() / HALF_DAY_MS);
  }

  private make(action: string, userId: number, session: string, tick: number): string {
    return createHmac('sha256', this.key)
      .update(`${tick}|${action}|${userId}|${session}`)
      .digest('hex')
      .slice(-10);
  }

  create(userId: number, session: string, action = 'wp_rest'): string {
    return this.make(action, userId, session, this.tick());
  }

  verify(nonce: string, userId: number, session: string, action = 'wp_rest'): boolean {
    const given = Buffer.from(nonce);
    const tick = this.tick();
    for (const t of [tick, tick - 1]) {
      const expected = Buffer.from(this.make(action, userId, session, t));
      if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
    }
    return false;
  }
}
