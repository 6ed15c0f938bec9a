import { describe, expect, it } from 'vitest';
import {
  CODE_LIFETIME_SECONDS,
  CONSENT_LIFETIME_SECONDS,
  issueAuthorizationCode,
  rememberConsent,
} from '../../src/domain/oauth/authorization-grant.js';
import { parseAuthorizationRequest } from '../../src/domain/oauth/authorization-request.js';
import {
  CODE_RETENTION_AFTER_EXPIRY_SECONDS,
  deleteExpiredOAuthRows,
} from '../../src/domain/oauth/cleanup.js';
import { listAuthorizations } from '../../src/domain/oauth/authorizations.js';
import { s256Challenge } from '../../src/domain/oauth/pkce.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';

const database = useTestDatabase();

describe('clean-up of expired codes and consents', () => {
  it('deletes codes a day after they expire and consents once expired, nothing earlier', async () => {
    const { db } = database.current;
    const user = await makeUser(db);
    const client = await makeClient(db, user);
    const parsed = await parseAuthorizationRequest(db, {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: CALLBACK,
      scope: 'api.auth.me.read',
      state: 's',
      code_challenge: s256Challenge('v'.repeat(43)),
      code_challenge_method: 'S256',
    });
    if (!parsed.ok) throw new Error('bad request');
    const t0 = new Date('2026-11-01T00:00:00Z');
    const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
    await issueAuthorizationCode(db, parsed.request, { ...user, authTime: t0 }, t0);
    await rememberConsent(db, user.userId, parsed.request, t0);
    const count = async (table: string) =>
      Number(
        (
          await db.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM ${table} WHERE client_id = $1`,
            [client.clientId],
          )
        ).rows[0]!.n,
      );

    expect(await deleteExpiredOAuthRows(db, at(CODE_LIFETIME_SECONDS + 1))).toMatchObject({
      codes: 0,
      consents: 0,
    });
    expect(await count('oauth_codes')).toBe(1);
    const afterRetention = at(CODE_LIFETIME_SECONDS + CODE_RETENTION_AFTER_EXPIRY_SECONDS + 1);
    expect((await deleteExpiredOAuthRows(db, afterRetention)).codes).toBeGreaterThanOrEqual(1);
    expect(await count('oauth_codes')).toBe(0);
    expect(await count('oauth_consents')).toBe(1);
    expect(
      (await listAuthorizations(db, user.userId, at(CONSENT_LIFETIME_SECONDS - 1))).map(
        (a) => a.clientId,
      ),
    ).toEqual([client.clientId]);
    expect(await listAuthorizations(db, user.userId, at(CONSENT_LIFETIME_SECONDS))).toEqual([]);
    expect(
      (await deleteExpiredOAuthRows(db, at(CONSENT_LIFETIME_SECONDS))).consents,
    ).toBeGreaterThanOrEqual(1);
    expect(await count('oauth_consents')).toBe(0);
  });
});
