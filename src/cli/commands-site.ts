import type { Command } from 'commander';
import { chunkAppPassword, createAppPassword } from '../domain/content/app-passwords.js';
import { findSiteAccountByName } from '../domain/content/site-users.js';
import { setSiteRole, SITE_ROLES } from '../domain/content/site-roles.js';
import type { Db } from '../shared/db/db.js';
import { CliError, out, withAppContext } from './cli-context.js';

async function accountId(db: Db, username: string): Promise<number> {
  const account = await findSiteAccountByName(db, username);
  if (!account) throw new CliError(`no user "${username}"`);
  return account.id;
}

/** The documentation site's commands: an account's site role, application passwords. */
export function registerSiteCommands(program: Command): void {
  program
    .command('site-role')
    .description(`set a user's role on the documentation site (${SITE_ROLES.join(', ')})`)
    .argument('<user>', 'username')
    .argument('<role>', 'site role')
    .action(async (user: string, role: string) => {
      await withAppContext(async (ctx) => {
        await setSiteRole(ctx.db, await accountId(ctx.db, user), role);
      });
      out(`${user} is now ${role} on the site`);
    });

  const appPassword = program
    .command('app-password')
    .description("manage a user's application passwords for the documentation site");
  appPassword
    .command('create')
    .description('create an application password (printed once, alone on the last line)')
    .argument('<user>', 'username')
    .argument('<name>', 'application name (unique per user)')
    .action(async (user: string, name: string) => {
      const created = await withAppContext(async (ctx) =>
        createAppPassword(ctx.db, { userId: await accountId(ctx.db, user), name }),
      );
      out(
        `application password "${created.item.name}" for ${user} (uuid ${created.item.uuid}); use it with HTTP Basic as ${user}:<password>`,
      );
      out(chunkAppPassword(created.password));
    });
}
