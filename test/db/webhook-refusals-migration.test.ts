import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWebhookEndpoint } from '../../src/domain/webhooks/webhook-endpoints.js';
import { migrationsDir } from '../../src/shared/db/migrate.js';
import { makeUser } from '../api/helpers/accounts.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

/**
 * Rows written before refusals stopped naming addresses still held "the host vm is, or resolves
 * to, a private or loopback address (10.1.2.3)": the migration rewrites them as refusals read now.
 * Run again on the migrated database, its SQL must rewrite such rows and leave others alone.
 */
describe('migration 030: stored webhook refusals without the addresses', () => {
  it('rewrites old refusal texts in endpoints and deliveries, and nothing else', async () => {
    const db = t.current.db;
    const user = await makeUser(db, 'oldrows');
    const who = { userId: user.userId, oauthClientId: null };
    const make = (url: string) =>
      createWebhookEndpoint(
        db,
        who,
        { url, events: ['export.ready'] },
        { allowLoopback: false, maxEndpoints: 10 },
      );
    const a = await make('https://vm/hook');
    const b = await make('https://example.org/hook');
    await db.query(
      `UPDATE webhook_endpoints SET last_error = $2, disabled_reason = $3 WHERE public_id = $1`,
      [
        a.endpoint.id,
        'the host vm is, or resolves to, a private or loopback address (10.1.2.3)',
        'failing for 24 h: the host vm cannot be resolved',
      ],
    );
    await db.query(`UPDATE webhook_endpoints SET last_error = $2 WHERE public_id = $1`, [
      b.endpoint.id,
      'HTTP 500 from the receiver',
    ]);
    const sql = readFileSync(
      path.join(migrationsDir(), '030_webhook_refusals_without_addresses.sql'),
      'utf8',
    );
    await db.query(sql);
    const rows = await db.query<{ id: string; last_error: string; disabled_reason: string }>(
      `SELECT public_id AS id, last_error, disabled_reason FROM webhook_endpoints ORDER BY id`,
    );
    const byId = new Map(rows.rows.map((r) => [r.id, r]));
    expect(byId.get(a.endpoint.id)).toMatchObject({
      last_error: 'the address of the host vm is not allowed',
      disabled_reason: 'failing for 24 h: the address of the host vm is not allowed',
    });
    expect(byId.get(b.endpoint.id)!.last_error).toBe('HTTP 500 from the receiver');
  });
});
