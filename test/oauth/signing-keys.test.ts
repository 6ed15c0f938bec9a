import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { deleteExpiredOAuthRows } from '../../src/domain/oauth/cleanup.js';
import { accessTokenHash, signIdToken } from '../../src/domain/oauth/id-token.js';
import { KEY_SECRET_FILE, resolveKeySecret } from '../../src/domain/oauth/key-secret.js';
import { SigningKeyStore } from '../../src/domain/oauth/signing-keys.js';
import { useTestDatabase } from '../helpers/test-db.js';

const database = useTestDatabase();
const SECRET = new TextEncoder().encode('a test secret of at least thirty-two characters');
const LIFETIME = 2_592_000;

function store(clock: () => number = Date.now, secret = SECRET) {
  return new SigningKeyStore(database.current.db, {
    secret: async () => secret,
    tokenLifetimeSeconds: LIFETIME,
    clock,
  });
}

async function sign(keys: SigningKeyStore, now: Date) {
  return signIdToken(await keys.current(), {
    issuer: 'https://emutrack.example',
    subject: '42',
    clientId: 'emc_x',
    issuedAt: now,
    expiresAt: new Date(now.getTime() + LIFETIME * 1000),
    authTime: now,
    accessToken: 'oauth_token',
  });
}

describe('id_token signing keys', () => {
  it('makes one RS256 key on first use, kid = its RFC 7638 thumbprint, private half encrypted', async () => {
    const { db } = database.current;
    await db.query('DELETE FROM oauth_signing_keys');
    const keys = store();
    const [a, b] = await Promise.all([keys.current(), store().current()]);
    expect(a.kid).toBe(b.kid);
    const jwks = await keys.jwks();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: a.kid });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const row = await db.query<{ private_jwe: string; public_jwk: object }>(
      'SELECT private_jwe, public_jwk FROM oauth_signing_keys',
    );
    const jwe = row.rows[0]!.private_jwe;
    // A compact JWE: 5 parts, header names PBES2 key wrapping; the private exponent is not in clear.
    expect(jwe.split('.')).toHaveLength(5);
    expect(decodeProtectedHeader(jwe)).toMatchObject({
      alg: 'PBES2-HS512+A256KW',
      enc: 'A256GCM',
      kid: a.kid,
    });
    expect(jwe).not.toMatch(/"d"/);
  });

  it('signs id_tokens that verify through the JWKS, with every claim and at_hash', async () => {
    const keys = store();
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const token = await sign(keys, now);
    const { payload, protectedHeader } = await jwtVerify(
      token,
      createLocalJWKSet(await keys.jwks()),
      {
        issuer: 'https://emutrack.example',
        audience: 'emc_x',
        algorithms: ['RS256'],
      },
    );
    expect(protectedHeader).toMatchObject({
      alg: 'RS256',
      typ: 'JWT',
      kid: (await keys.current()).kid,
    });
    expect(payload).toMatchObject({
      sub: '42',
      azp: 'emc_x',
      iat: now.getTime() / 1000,
      exp: now.getTime() / 1000 + LIFETIME,
      auth_time: now.getTime() / 1000,
      at_hash: accessTokenHash('oauth_token'),
    });
    expect(payload).not.toHaveProperty('nonce');
    expect(payload).not.toHaveProperty('preferred_username');
  });

  it('refuses to use a key encrypted with another secret, without telling either secret', async () => {
    const other = store(
      Date.now,
      new TextEncoder().encode('another secret, also thirty-two characters long'),
    );
    const err = await other.current().then(
      () => undefined,
      (e: unknown) => e as Error & { code: string },
    );
    expect(err?.code).toBe('oauth_signing_key_unreadable');
    expect(err?.message).not.toContain('thirty-two');
  });

  it('rotation signs with the new key and keeps the old one published until its last token expires', async () => {
    const { db } = database.current;
    let now = Date.now();
    const clock = () => now;
    const keys = store(clock);
    const old = await keys.current();
    const oldToken = await sign(keys, new Date(now));
    const { kid, retired } = await keys.rotate();
    expect(retired).toEqual([old.kid]);
    expect((await keys.current()).kid).toBe(kid);
    expect(decodeProtectedHeader(await sign(keys, new Date(now))).kid).toBe(kid);
    expect((await keys.jwks()).keys.map((k) => k.kid)).toEqual([kid, old.kid]);
    // The old token still verifies through the published set.
    await jwtVerify(oldToken, createLocalJWKSet(await keys.jwks()), { currentDate: new Date(now) });

    now += (LIFETIME - 60) * 1000;
    expect((await keys.jwks()).keys.map((k) => k.kid)).toEqual([kid, old.kid]);
    expect((await deleteExpiredOAuthRows(db, new Date(now))).signingKeys).toBe(0);
    now += 3600 * 1000;
    expect((await keys.jwks()).keys.map((k) => k.kid)).toEqual([kid]);
    expect((await deleteExpiredOAuthRows(db, new Date(now))).signingKeys).toBe(1);
    expect((await keys.list()).map((k) => k.kid)).not.toContain(old.kid);
  });
});

describe('the key secret', () => {
  it('uses OAUTH_KEY_SECRET when set, else generates one file (0600) that later starts reuse', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-oauth-'));
    try {
      const configured = await resolveKeySecret({ configured: 'x'.repeat(32), dataDir: dir });
      expect(configured.source).toBe('configured');
      const warnings: string[] = [];
      const [a, b] = await Promise.all([
        resolveKeySecret({ dataDir: dir, warn: (m) => warnings.push(m) }),
        resolveKeySecret({ dataDir: dir, warn: (m) => warnings.push(m) }),
      ]);
      expect(a.source).toBe('generated');
      expect(Buffer.from(a.secret).equals(Buffer.from(b.secret))).toBe(true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).not.toContain(Buffer.from(a.secret).toString());
      const file = path.join(dir, KEY_SECRET_FILE);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await readFile(file, 'utf8')).trim().length).toBeGreaterThanOrEqual(32);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
