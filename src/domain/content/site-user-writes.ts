import { deleteAccount } from '../accounts/account-deletion.js';
import { assertPasswordStrong } from '../accounts/password-policy.js';
import type { PasswordOptions } from '../accounts/users.js';
import { assertPassword, createUser, resetPassword, setUserEmail } from '../accounts/users.js';
import type { Db, Queryable } from '../../shared/db/db.js';
import { POST_TYPES } from './post-types.js';
import { deletePost } from './posts-store.js';
import { setSiteRole, type SiteRole } from './site-roles.js';

/** Profile fields a write may set (site_user_profiles); absent = unchanged. */
export interface SiteProfileChanges {
  displayName?: string;
  firstName?: string;
  lastName?: string;
  nickname?: string;
  description?: string;
  url?: string;
  locale?: string;
  /** Registered meta keys to set (merged over the stored ones). */
  meta?: Record<string, unknown>;
}

const PROFILE_COLUMNS: Record<Exclude<keyof SiteProfileChanges, 'meta'>, string> = {
  displayName: 'display_name',
  firstName: 'first_name',
  lastName: 'last_name',
  nickname: 'nickname',
  description: 'description',
  url: 'url',
  locale: 'locale',
};

/** The account policy's password rules (length, then strength against the username). */
export function assertSitePassword(password: string, username: string): void {
  assertPassword(password);
  assertPasswordStrong(password, [username]);
}

async function writeProfile(db: Queryable, userId: number, changes: SiteProfileChanges) {
  const columns: string[] = [];
  const values: unknown[] = [userId];
  for (const [key, column] of Object.entries(PROFILE_COLUMNS)) {
    const value = changes[key as keyof typeof PROFILE_COLUMNS];
    if (value === undefined) continue;
    values.push(value);
    columns.push(column);
  }
  if (changes.meta !== undefined) {
    values.push(JSON.stringify(changes.meta));
    columns.push('meta');
  }
  if (columns.length === 0) return;
  const placeholders = columns.map((c, i) => (c === 'meta' ? `$${i + 2}::jsonb` : `$${i + 2}`));
  const updates = columns.map((c) =>
    c === 'meta' ? `meta = site_user_profiles.meta || excluded.meta` : `${c} = excluded.${c}`,
  );
  await db.query(
    `INSERT INTO site_user_profiles (user_id, ${columns.join(', ')}) VALUES ($1, ${placeholders.join(', ')})
     ON CONFLICT (user_id) DO UPDATE SET ${updates.join(', ')}, updated_at = now()`,
    values,
  );
}

/**
 * Creates an account (account role `user`) for the site with its e-mail address, site role and
 * profile, in one transaction; the password is held to the account policy. Throws the accounts
 * domain's AccountError (invalid_param, username_taken, email_taken).
 */
export async function createSiteAccount(
  db: Db,
  input: {
    username: string;
    email: string;
    password: string;
    role: SiteRole;
    profile?: SiteProfileChanges;
  },
  options: PasswordOptions = {},
): Promise<number> {
  assertSitePassword(input.password, input.username);
  return db.transaction(async (tx) => {
    const user = await createUser(
      tx,
      { username: input.username, email: input.email, password: input.password },
      options,
    );
    const id = Number(user.userId);
    await setSiteRole(tx, id, input.role);
    await writeProfile(tx, id, input.profile ?? {});
    return id;
  });
}

/**
 * Updates an account from the site: e-mail address, site role and profile in one transaction;
 * a new password (no current one asked, as WordPress's profile update) ends the account's web
 * sessions but `keepCredentialId`.
 */
export async function updateSiteAccount(
  db: Db,
  userId: number,
  changes: {
    email?: string;
    password?: { value: string; username: string; keepCredentialId?: string };
    role?: SiteRole;
    profile?: SiteProfileChanges;
  },
  options: PasswordOptions = {},
): Promise<void> {
  if (changes.password) assertSitePassword(changes.password.value, changes.password.username);
  await db.transaction(async (tx) => {
    if (changes.email !== undefined) await setUserEmail(tx, String(userId), changes.email);
    if (changes.role !== undefined) await setSiteRole(tx, userId, changes.role);
    await writeProfile(tx, userId, changes.profile ?? {});
  });
  if (changes.password) {
    await resetPassword(
      db,
      {
        userId: String(userId),
        newPassword: changes.password.value,
        keepCredentialId: changes.password.keepCredentialId,
      },
      options,
    );
  }
}

/** The types whose items are deleted with their author when nobody takes them over. */
const DELETED_WITH_AUTHOR = Object.values(POST_TYPES)
  .filter((t) => t.supports.author)
  .map((t) => t.type);

/**
 * wp_delete_user: the account's posts and pages go to `reassignTo`, or, when null, are deleted
 * with their revisions (other items it wrote stay, without an author); then the account itself
 * (accounts' deleteAccount: its credentials, OAuth clients, application passwords go with it).
 */
export async function deleteSiteAccount(
  db: Db,
  userId: number,
  reassignTo: number | null,
): Promise<void> {
  await db.transaction(async (tx) => {
    if (reassignTo !== null) {
      await tx.query('UPDATE site_posts SET author = $2 WHERE author = $1', [userId, reassignTo]);
    } else {
      const owned = await tx.query<{ id: string }>(
        `SELECT id FROM site_posts WHERE author = $1 AND type = ANY($2::text[])`,
        [userId, DELETED_WITH_AUTHOR],
      );
      for (const row of owned.rows) await deletePost(tx, Number(row.id));
    }
    await deleteAccount(tx, String(userId));
  });
}
