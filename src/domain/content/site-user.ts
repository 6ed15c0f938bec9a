import { ROLE_CAPABILITIES, type SiteRole } from './site-roles.js';

/** An account as the site sees it: its id, names and site role. */
export interface SiteUser {
  id: number;
  username: string;
  role: SiteRole;
  /** The uuid of the application password the request authenticated with, if it did (introspect). */
  appPassword?: string;
}

/** Whether the user holds a primitive capability (edit_posts, manage_options, ...). */
export function hasCap(user: SiteUser | null | undefined, cap: string): boolean {
  if (!user) return false;
  return ROLE_CAPABILITIES[user.role].has(cap);
}
