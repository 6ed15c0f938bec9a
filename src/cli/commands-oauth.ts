import type { Command } from 'commander';
import { findUserByName } from '../domain/accounts/users.js';
import { isEmutrackError } from '../shared/errors/emutrack-error.js';
import { reviewClient } from '../domain/oauth/client-review.js';
import { signingKeysFromConfig } from '../domain/oauth/signing-keys-config.js';
import { CliError, out, withAppContext } from './cli-context.js';

/** Domain refusals (unknown client, a scope it does not request) become one-line CLI errors. */
function asCliError(err: unknown): never {
  if (isEmutrackError(err, 'oauth_client_not_found', 'oauth_invalid_input'))
    throw new CliError(err.message);
  throw err;
}

/**
 * `emutrack oauth-client approve|reject <clientId> <scope...>` (the administrators' scope review
 * from a shell) and `emutrack oauth-keys rotate|list` (id_token signing keys).
 */
export function registerOAuthCommands(program: Command): void {
  const client = program
    .command('oauth-client')
    .description("review an OAuth client's requested scopes");
  for (const decision of ['approve', 'reject'] as const) {
    client
      .command(decision)
      .description(
        decision === 'approve'
          ? 'approve scopes a client requested: every user may then grant them'
          : 'reject scopes a client requested: authorizations with them fail, and tokens carrying them are revoked',
      )
      .argument('<clientId>')
      .argument('<scope...>')
      .option('--by <username>', 'the administrator recorded as reviewer (default: none, "CLI")')
      .action(async (clientId: string, scopes: string[], opts: { by?: string }) => {
        await withAppContext(async ({ db }) => {
          let reviewer: string | null = null;
          if (opts.by !== undefined) {
            const user = await findUserByName(db, opts.by);
            if (!user || user.role !== 'admin')
              throw new CliError(`--by: ${opts.by} is not an administrator`);
            reviewer = user.userId;
          }
          const status = decision === 'approve' ? 'approved' : 'rejected';
          const { client: reviewed, withdrawn } = await reviewClient(
            db,
            clientId,
            { scopes: Object.fromEntries(scopes.map((s) => [s, status])) },
            reviewer,
          ).catch(asCliError);
          for (const s of reviewed.scopes) out(`${s.scope}: ${s.status}`);
          if (withdrawn.tokens > 0) out(`revoked ${withdrawn.tokens} access token(s)`);
        });
      });
  }

  const keys = program.command('oauth-keys').description('id_token signing keys (RS256)');
  keys
    .command('rotate')
    .description(
      'add a new signing key; the current one stops signing and stays published until its last token expires',
    )
    .action(async () => {
      await withAppContext(async ({ db, config, logger }) => {
        const store = signingKeysFromConfig(db, config, { warn: (m) => logger.warn(m) });
        const { kid, retired } = await store.rotate();
        out(`new signing key ${kid}`);
        for (const info of await store.list()) {
          if (retired.includes(info.kid))
            out(`retired ${info.kid}: published until ${info.publishUntil!.toISOString()}`);
        }
      });
    });
  keys
    .command('list')
    .description('list the signing keys: the one that signs, and retired ones still published')
    .action(async () => {
      await withAppContext(async ({ db, config, logger }) => {
        const store = signingKeysFromConfig(db, config, { warn: (m) => logger.warn(m) });
        const list = await store.list();
        if (list.length === 0) out('no signing key yet (the first is made on first use)');
        for (const k of list) {
          out(
            k.retiredAt === null
              ? `${k.kid}: signing since ${k.createdAt.toISOString()}`
              : `${k.kid}: retired ${k.retiredAt.toISOString()}, published until ${k.publishUntil!.toISOString()}`,
          );
        }
      });
    });
}
