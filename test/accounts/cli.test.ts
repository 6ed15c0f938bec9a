import { Command } from 'commander';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticateSecret } from '../../src/domain/accounts/credentials.js';
import { findUserByName, verifyLogin } from '../../src/domain/accounts/users.js';
import { runCli } from '../../src/cli/cli.js';
import { registerAccountsCommands } from '../../src/cli/commands-accounts.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

function capture() {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  return { out: () => stdout, err: () => stderr };
}

async function cli(...args: string[]) {
  const io = capture();
  try {
    const code = await runCli(['node', 'emutrack', ...args]);
    return { code, stdout: io.out(), stderr: io.err() };
  } finally {
    vi.restoreAllMocks();
  }
}

/** `user create` with the password a pipe would give. */
async function createUser(name: string, password: string, ...flags: string[]) {
  const program = new Command().exitOverride();
  registerAccountsCommands(program, { readPassword: async () => password });
  const io = capture();
  try {
    await program.parseAsync(['node', 'emutrack', 'user', 'create', name, ...flags]);
    return io.out();
  } finally {
    vi.restoreAllMocks();
  }
}

beforeAll(() => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
  process.env.PASSWORD_SCRYPT_N = '1024';
});
afterEach(() => vi.restoreAllMocks());

describe('emutrack user / key', () => {
  it('creates users (password from stdin), lists them, bans and unbans', async () => {
    expect(await createUser('op_alice', 'alice-password')).toMatch(
      /^created user op_alice \(id \d+\)\n$/,
    );
    expect(await createUser('op_root', 'root-password', '--admin')).toMatch(
      /^created admin op_root/,
    );
    expect(
      (
        await verifyLogin(t.current.db, 'op_alice', 'alice-password', {
          scrypt: { N: 1024, r: 8, p: 1 },
        })
      )?.username,
    ).toBe('op_alice');
    const list = await cli('user', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^id\tusername\trole\tbanned\tcreated\n/);
    expect(list.stdout).toMatch(/\top_alice\tuser\t-\t/);
    expect(list.stdout).toMatch(/\top_root\tadmin\t-\t/);
    const ban = await cli('user', 'ban', 'OP_ALICE');
    expect(ban.stdout).toMatch(/^op_alice: banned since \d{4}-/);
    expect((await findUserByName(t.current.db, 'op_alice'))!.bannedAt).not.toBeNull();
    expect((await cli('user', 'unban', 'op_alice')).stdout).toBe('op_alice: not banned\n');
    const missing = await cli('user', 'ban', 'nobody_at_all');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('emutrack: no user nobody_at_all\n');
  });

  it('refuses a taken name and a short password', async () => {
    await createUser('op_bob', 'bob-password');
    await expect(createUser('OP_BOB', 'bob-password')).rejects.toThrow(/taken/);
    await expect(createUser('op_carl', 'short')).rejects.toThrow(/password/);
  });

  it('issues a key (alone on the last line, once) with name, scopes, lifetime and daily limit; revokes it', async () => {
    await createUser('op_dana', 'dana-password');
    const r = await cli(
      'key',
      'issue',
      'op_dana',
      '--name',
      'nightly job',
      '--scopes',
      'api.records.daily.read,api.auth.me.read',
      '--expires-days',
      '7',
      '--daily-limit',
      '250',
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    const key = lines[lines.length - 1]!;
    expect(key).toMatch(/^api_[A-Za-z0-9_-]{43}$/);
    expect(r.stdout.split(key).length).toBe(2); // printed once
    expect(r.stdout).toContain('scopes: api.auth.me.read,api.records.daily.read\n');
    expect(r.stdout).toContain('daily limit: 250\n');
    const auth = await authenticateSecret(t.current.db, key);
    expect(auth).toMatchObject({
      ok: true,
      credential: { name: 'nightly job', dailyTokenLimit: 250 },
    });
    if (!auth.ok) throw new Error('unreachable');
    const lifetime = auth.credential.expiresAt.getTime() - auth.credential.activeFrom.getTime();
    expect(Math.round(lifetime / 86_400_000)).toBe(7);
    const revokeId = /revokeId: (\S+)/.exec(r.stdout)![1]!;
    const revoked = await cli('key', 'revoke', revokeId);
    expect({ code: revoked.code, stderr: revoked.stderr }).toEqual({ code: 0, stderr: '' });
    expect(revoked.stdout).toMatch(/^revoked api_.{4}\*{4}.{4} \(api, nightly job\)\n$/);
    expect(await authenticateSecret(t.current.db, key)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
    expect((await cli('key', 'revoke', 'no-such-id')).code).toBe(1);
  });

  it('refuses a key with a scope beyond the user, an unknown user or a bad number', async () => {
    await createUser('op_eve', 'eve-password');
    const beyond = await cli(
      'key',
      'issue',
      'op_eve',
      '--scopes',
      'api.admin.oauth.clients.review',
    );
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain('api.admin.oauth.clients.review');
    expect((await cli('key', 'issue', 'no_such_user')).stderr).toBe(
      'emutrack: no user no_such_user\n',
    );
    const bad = await cli('key', 'issue', 'op_eve', '--expires-days', '0');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--expires-days');
  });
});
