import { Command, InvalidArgumentError } from 'commander';
import { issueCredential, revokeCredential } from '../domain/accounts/credentials.js';
import { defaultKeyScopes } from '../domain/accounts/scopes.js';
import {
  banUser,
  createUser,
  findUserByName,
  listUsers,
  unbanUser,
} from '../domain/accounts/users.js';
import { accountSettingsFromConfig } from '../domain/accounts/account-settings.js';
import { CliError, out, withAppContext } from './cli-context.js';

export interface AccountCommandsOptions {
  /** Reads the new user's password. Default: the first line of stdin. Tests pass their own. */
  readPassword?: () => Promise<string>;
}

/** The first line of stdin (a pipe, a file, or typed at a terminal and ended with Enter). */
async function firstLineOfStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password: ');
  let text = '';
  for await (const chunk of process.stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

function positiveInt(name: string, max: number) {
  return (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from 1 to ${max}`);
    }
    return Number(value);
  };
}

function nonNegativeInt(name: string) {
  return (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) > 2_147_483_647) {
      throw new InvalidArgumentError(`${name} must be a whole number from 0`);
    }
    return Number(value);
  };
}

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

/**
 * Operators' commands: `user create <name> [--admin]` (password from stdin), `user ban|unban
 * <name>`, `user list`, `key issue <user> [...]` (the key alone on the last line, once) and
 * `key revoke <revokeId>`. A ban or revocation is seen by running API processes within a second.
 */
export function registerAccountsCommands(
  program: Command,
  options: AccountCommandsOptions = {},
): void {
  const readPassword = options.readPassword ?? firstLineOfStdin;
  const user = program.command('user').description('accounts: create, ban, unban, list');

  user
    .command('create')
    .description('create a user; the password is read from stdin (its first line)')
    .argument('<name>', '3-32 characters of letters, digits, "_", "." and "-"')
    .option('--admin', 'make the user an administrator')
    .action(async (name: string, opts: { admin?: boolean }) => {
      const password = await readPassword();
      await withAppContext(async ({ db, config }) => {
        const settings = accountSettingsFromConfig(config);
        const created = await createUser(
          db,
          { username: name, password, role: opts.admin ? 'admin' : 'user' },
          { scrypt: settings.scrypt },
        );
        out(`created ${created.role} ${created.username} (id ${created.userId})`);
      });
    });

  for (const action of ['ban', 'unban'] as const) {
    user
      .command(action)
      .description(
        action === 'ban'
          ? 'ban a user: every call with their sessions and keys is refused (403 account_banned)'
          : 'lift a ban',
      )
      .argument('<name>')
      .action(async (name: string) => {
        await withAppContext(async ({ db }) => {
          const changed = await (action === 'ban' ? banUser(db, name) : unbanUser(db, name));
          out(
            `${changed.username}: ${changed.bannedAt ? `banned since ${iso(changed.bannedAt)}` : 'not banned'}`,
          );
        });
      });
  }

  user
    .command('list')
    .description('every user: id, name, role, banned')
    .action(async () => {
      await withAppContext(async ({ db }) => {
        const users = await listUsers(db);
        out('id\tusername\trole\tbanned\tcreated');
        for (const u of users) {
          out(
            `${u.userId}\t${u.username}\t${u.role}\t${u.bannedAt ? iso(u.bannedAt) : '-'}\t${iso(u.createdAt)}`,
          );
        }
      });
    });

  const key = program.command('key').description('API keys: issue, revoke');

  key
    .command('issue')
    .description('issue an API key to a user; the key is printed alone on the last line, once')
    .argument('<user>', 'the username')
    .option('--name <name>', 'shown in listings', 'issued by an operator')
    .option('--scopes <a,b>', 'comma-separated scopes (default: every scope the user holds)')
    .option(
      '--expires-days <n>',
      'lifetime in days (default API_KEY_DEFAULT_LIFETIME_DAYS)',
      positiveInt('--expires-days', 1826),
    )
    .option(
      '--daily-limit <n>',
      'tokens per Shanghai service day (default API_KEY_DAILY_TOKEN_LIMIT)',
      nonNegativeInt('--daily-limit'),
    )
    .action(
      async (
        username: string,
        opts: { name: string; scopes?: string; expiresDays?: number; dailyLimit?: number },
      ) => {
        await withAppContext(async ({ db, config }) => {
          const settings = accountSettingsFromConfig(config);
          const holder = await findUserByName(db, username);
          if (!holder) throw new CliError(`no user ${username}`);
          const scopes =
            opts.scopes === undefined
              ? defaultKeyScopes(holder.role)
              : opts.scopes
                  .split(',')
                  .map((s) => s.trim())
                  .filter((s) => s !== '');
          const now = new Date();
          const days = opts.expiresDays ?? config.API_KEY_DEFAULT_LIFETIME_DAYS;
          const { secret, credential } = await issueCredential(
            db,
            {
              userId: holder.userId,
              issuer: 'api',
              name: opts.name,
              scopes,
              expiresAt: new Date(now.getTime() + days * 86_400_000),
              dailyTokenLimit: opts.dailyLimit ?? settings.dailyTokenLimit,
            },
            { now, maxLifetimeSeconds: settings.maxLifetimeSeconds },
          );
          out(`user: ${holder.username}`);
          out(`revokeId: ${credential.revokeId}`);
          out(`masked: ${credential.maskedApiKey}`);
          out(`scopes: ${credential.scopes.join(',')}`);
          out(`expires: ${iso(credential.expiresAt)}`);
          out(`daily limit: ${credential.dailyTokenLimit}`);
          out(secret);
        });
      },
    );

  key
    .command('revoke')
    .description('revoke a key, web session or OAuth token by its revokeId')
    .argument('<revokeId>')
    .action(async (revokeId: string) => {
      await withAppContext(async ({ db }) => {
        const revoked = await revokeCredential(db, revokeId);
        if (!revoked) throw new CliError(`no credential ${revokeId}`);
        out(`revoked ${revoked.maskedApiKey} (${revoked.issuer}, ${revoked.name || 'unnamed'})`);
      });
    });
}
