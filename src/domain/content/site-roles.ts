import type { Queryable } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** WordPress's five roles; every account has one on the site (site_roles, else by account role). */
export const SITE_ROLES = [
  'administrator',
  'editor',
  'author',
  'contributor',
  'subscriber',
] as const;
export type SiteRole = (typeof SITE_ROLES)[number];

const SUBSCRIBER = ['read', 'level_0'];
const CONTRIBUTOR = [...SUBSCRIBER, 'edit_posts', 'delete_posts', 'level_1'];
const AUTHOR = [
  ...CONTRIBUTOR,
  'upload_files',
  'publish_posts',
  'edit_published_posts',
  'delete_published_posts',
  'level_2',
];
const EDITOR = [
  ...AUTHOR,
  'moderate_comments',
  'manage_categories',
  'manage_links',
  'unfiltered_html',
  'edit_others_posts',
  'delete_others_posts',
  'edit_private_posts',
  'read_private_posts',
  'delete_private_posts',
  'edit_pages',
  'edit_others_pages',
  'edit_published_pages',
  'publish_pages',
  'delete_pages',
  'delete_others_pages',
  'delete_published_pages',
  'delete_private_pages',
  'edit_private_pages',
  'read_private_pages',
  'level_3',
  'level_4',
  'level_5',
  'level_6',
  'level_7',
];
const ADMINISTRATOR = [
  ...EDITOR,
  'manage_options',
  'edit_theme_options',
  'list_users',
  'create_users',
  'edit_users',
  'delete_users',
  'promote_users',
  'edit_dashboard',
  // The rest of WordPress's administrator: the site has no plugins, themes, files or updates to
  // manage, so nothing here checks these; users' edit context lists them as WordPress does.
  'switch_themes',
  'edit_themes',
  'activate_plugins',
  'edit_plugins',
  'edit_files',
  'import',
  'export',
  'unfiltered_upload',
  'update_plugins',
  'delete_plugins',
  'install_plugins',
  'update_themes',
  'install_themes',
  'delete_themes',
  'update_core',
  'remove_users',
  'level_8',
  'level_9',
  'level_10',
];

/** The primitive capabilities of each role (WordPress's populate_roles). */
export const ROLE_CAPABILITIES: Record<SiteRole, ReadonlySet<string>> = {
  administrator: new Set(ADMINISTRATOR),
  editor: new Set(EDITOR),
  author: new Set(AUTHOR),
  contributor: new Set(CONTRIBUTOR),
  subscriber: new Set(SUBSCRIBER),
};

export class UnknownSiteRoleError extends EmutrackError {
  constructor(role: string) {
    super('site_role_unknown', `unknown site role "${role}"; one of ${SITE_ROLES.join(', ')}`);
  }
}

export function isSiteRole(value: string): value is SiteRole {
  return (SITE_ROLES as readonly string[]).includes(value);
}

/** Without a row of its own, an admin account is the site's administrator, anyone else a subscriber. */
export function defaultSiteRole(accountRole: string): SiteRole {
  return accountRole === 'admin' ? 'administrator' : 'subscriber';
}

export async function setSiteRole(db: Queryable, userId: number, role: string): Promise<void> {
  if (!isSiteRole(role)) throw new UnknownSiteRoleError(role);
  await db.query(
    `INSERT INTO site_roles (user_id, role) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, updated_at = now()`,
    [userId, role],
  );
}
