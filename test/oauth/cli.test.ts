import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findClient } from '../../src/domain/oauth/client-records.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeClient, makeUser } from './oauth-fixtures.js';
import { cli } from '../helpers/run-cli.js';

const t = useTestDatabase();

beforeAll(() => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
  process.env.OAUTH_KEY_SECRET = 'cli test secret: thirty-two characters or more';
});
afterEach(() => vi.restoreAllMocks());

describe('emutrack oauth-client / oauth-keys', () => {
  it('approves and rejects scopes of a client', async () => {
    const { db } = t.current;
    const admin = await makeUser(db, 'admin');
    const client = await makeClient(db, await makeUser(db));
    const approve = await cli(
      'oauth-client',
      'approve',
      client.clientId,
      'api.auth.me.read',
      '--by',
      admin.username,
    );
    expect(approve).toMatchObject({ code: 0, stderr: '' });
    expect(approve.stdout).toBe('api.auth.me.read: approved\napi.records.daily.read: pending\n');
    const reject = await cli('oauth-client', 'reject', client.clientId, 'api.records.daily.read');
    expect(reject.stdout).toBe('api.auth.me.read: approved\napi.records.daily.read: rejected\n');
    const after = await findClient(db, client.clientId);
    expect(after!.scopes.map((s) => [s.scope, s.reviewedBy])).toEqual([
      ['api.auth.me.read', admin.userId],
      ['api.records.daily.read', null],
    ]);
  });

  it('fails in one line for an unknown client, a scope not requested, a non-admin reviewer', async () => {
    const { db } = t.current;
    const user = await makeUser(db);
    const client = await makeClient(db, user);
    expect(await cli('oauth-client', 'approve', 'emc_unknown', 'api.auth.me.read')).toMatchObject({
      code: 1,
      stderr: 'emutrack: no OAuth client "emc_unknown"\n',
    });
    const r = await cli('oauth-client', 'approve', client.clientId, 'api.history.emu.read');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /scopes\.api\.history\.emu\.read: the client does not request this scope/,
    );
    const by = await cli(
      'oauth-client',
      'approve',
      client.clientId,
      'api.auth.me.read',
      '--by',
      user.username,
    );
    expect(by).toMatchObject({
      code: 1,
      stderr: `emutrack: --by: ${user.username} is not an administrator\n`,
    });
  });

  it('rotates the signing key: the old one is listed as retired and still published', async () => {
    const first = await cli('oauth-keys', 'rotate');
    expect(first.code).toBe(0);
    const firstKid = /new signing key (\S+)/.exec(first.stdout)![1]!;
    const second = await cli('oauth-keys', 'rotate');
    const secondKid = /new signing key (\S+)/.exec(second.stdout)![1]!;
    expect(second.stdout).toMatch(new RegExp(`retired ${firstKid}: published until \\d{4}-`));
    const list = await cli('oauth-keys', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(new RegExp(`^${secondKid}: signing since`));
    expect(list.stdout).toContain(`${firstKid}: retired`);
  });
});
