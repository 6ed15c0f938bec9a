/**
 * The scope catalogue: every scope a credential can carry, with the words shown to people (the
 * key form, the OAuth consent page, the docs). Scope names and which operation needs which are
 * the live service's (compatibility.md); the descriptions are ours.
 */
export interface ScopeInfo {
  /** The scope as written in credentials and OAuth requests. */
  name: string;
  /** What holding it allows, in words, for people choosing scopes. */
  description: string;
  /** Whether anonymous callers hold it (every read scope but the session's). */
  anonymous: boolean;
  /** Whether only administrators hold it (and so only their keys may carry it). */
  adminOnly?: boolean;
  /**
   * Whether it is kept from third-party apps (OAuth clients cannot request it) and from keys
   * that do not ask for it by name (not among the default scopes of a new key).
   */
  explicitOnly?: boolean;
}

export const SCOPE_CATALOGUE: readonly ScopeInfo[] = [
  {
    name: 'api.auth.me.read',
    description: 'See who you are: your user id, this key and your remaining quota.',
    anonymous: false,
  },
  {
    name: 'api.records.daily.read',
    description: 'Read the daily records: which EMU ran which train on a day.',
    anonymous: true,
  },
  {
    name: 'api.records.changes.read',
    description: 'Follow every change to the daily records (the change feed).',
    anonymous: true,
  },
  {
    name: 'api.timetable.train.current.read',
    description: "Read a train's current timetable and circulation.",
    anonymous: true,
  },
  {
    name: 'api.timetable.train.circulation.image.read',
    description: "Get a picture (PNG or PDF) of a train's circulation.",
    anonymous: true,
  },
  {
    name: 'api.timetable.train.history.read',
    description: "Read a train's past timetables and the days each covered.",
    anonymous: true,
  },
  {
    name: 'api.timetable.station.read',
    description: "Read a station's timetable.",
    anonymous: true,
  },
  {
    name: 'api.history.train.read',
    description: 'Read which EMUs ran a train over time.',
    anonymous: true,
  },
  {
    name: 'api.history.emu.read',
    description: 'Read which trains an EMU ran over time.',
    anonymous: true,
  },
  {
    name: 'api.allocation.emu.read',
    description: "Read an EMU's allocation: model, bureau, depot, coaches.",
    anonymous: true,
  },
  {
    name: 'api.exports.daily.read',
    description: "List and download each day's CSV export.",
    anonymous: true,
  },
  {
    name: 'api.prediction.train.read',
    description: 'Read which EMUs are likely to run a train on a coming day.',
    anonymous: true,
  },
  {
    // Listing and revoking credentials is account takeover's last step (a key that can revoke
    // the owner's web sessions locks them out): only web sessions and keys made for it.
    name: 'api.auth.credentials.manage',
    description:
      'Manage your credentials: list your keys, web sessions and app tokens, and revoke them.',
    anonymous: false,
    explicitOnly: true,
  },
  {
    name: 'api.webhooks.manage',
    description:
      'Register, list, rotate and delete webhook endpoints that receive record and export events.',
    anonymous: false,
  },
  {
    name: 'api.auth.favorites',
    description:
      'See and change your favourite trains, units and stations, with today’s status of each.',
    anonymous: false,
  },
  {
    name: 'api.auth.subscriptions',
    description:
      'Subscribe to alerts about trains, units and stations (e-mail, Web Push, webhooks), list and delete them.',
    anonymous: false,
  },
  {
    name: 'api.search.read',
    description: 'Look up trains, EMUs and stations by what you type.',
    anonymous: true,
  },
  {
    name: 'api.admin.oauth.clients.review',
    description:
      'Review OAuth clients: approve or reject the scopes they ask for (administrators).',
    anonymous: false,
    adminOnly: true,
  },
  {
    name: 'api.admin.corrections.write',
    description:
      'Correct the record: retract sightings, merge units, undo corrections, and read the audit trail of corrections (administrators).',
    anonymous: false,
    adminOnly: true,
  },
  {
    name: 'api.reports.write',
    description: 'Report a sighting: which unit you saw on which train.',
    anonymous: false,
  },
  {
    // Moderators hold it with administrators (scopesOfRole); apps never do.
    name: 'api.admin.reports.moderate',
    description: 'Moderate sighting reports: see the queue, accept or refuse (moderators).',
    anonymous: false,
    adminOnly: true,
  },
];

/** A moderator decides sighting reports; an administrator may do everything a moderator may. */
export type Role = 'user' | 'moderator' | 'admin';

/** The scope of the moderators' queue and decisions. */
export const MODERATION_SCOPE = 'api.admin.reports.moderate';

const BY_NAME = new Map(SCOPE_CATALOGUE.map((s) => [s.name, s]));

/** Every scope name, in catalogue order. */
export const ALL_SCOPES: readonly string[] = SCOPE_CATALOGUE.map((s) => s.name);

/** The scopes anonymous callers hold. */
export const ANONYMOUS_SCOPES: readonly string[] = SCOPE_CATALOGUE.filter((s) => s.anonymous).map(
  (s) => s.name,
);

/** The scope of GetAuthMe (the session check). */
export const AUTH_ME_SCOPE = 'api.auth.me.read';

/**
 * What an API key needs to list and revoke its owner's credentials (/auth/api-keys); web
 * sessions may always. Never given to OAuth apps nor to a key that does not ask for it.
 */
export const CREDENTIALS_MANAGE_SCOPE = 'api.auth.credentials.manage';

/** Whether a third-party app (an OAuth client) may request the scope. */
export function isAppRequestableScope(name: string): boolean {
  const info = BY_NAME.get(name);
  return info !== undefined && !info.adminOnly && !info.explicitOnly;
}

export function isScope(name: string): boolean {
  return BY_NAME.has(name);
}

/** The catalogue entry of a scope, or undefined for an unknown name. */
export function scopeInfo(name: string): ScopeInfo | undefined {
  return BY_NAME.get(name);
}

const USER_SCOPES: readonly string[] = SCOPE_CATALOGUE.filter((s) => !s.adminOnly).map(
  (s) => s.name,
);

/**
 * The scopes a user of this role holds, i.e. the most any of their credentials may carry:
 * administrators hold every scope of the catalogue, users all but the adminOnly ones.
 */
export function scopesOfRole(role: Role): readonly string[] {
  return role === 'admin' ? ALL_SCOPES : role === 'moderator' ? MODERATOR_SCOPES : USER_SCOPES;
}

const MODERATOR_SCOPES: readonly string[] = normalizeScopes([...USER_SCOPES, MODERATION_SCOPE]);

/** Whether the role may moderate sighting reports. */
export function isModerator(role: Role): boolean {
  return role === 'moderator' || role === 'admin';
}

const DEFAULT_KEY_SCOPES: Record<Role, readonly string[]> = {
  user: USER_SCOPES.filter((s) => !BY_NAME.get(s)!.explicitOnly),
  moderator: MODERATOR_SCOPES.filter((s) => !BY_NAME.get(s)!.explicitOnly),
  admin: ALL_SCOPES.filter((s) => !BY_NAME.get(s)!.explicitOnly),
};

/**
 * The scopes a new API key gets when none are asked for: everything the user holds but the
 * explicit-only ones (managing credentials), which a key gets only by asking.
 */
export function defaultKeyScopes(role: Role): readonly string[] {
  return DEFAULT_KEY_SCOPES[role];
}

/** The first of `wanted` that `held` lacks, or undefined when `held` covers them all. */
export function firstMissingScope(
  wanted: readonly string[],
  held: readonly string[],
): string | undefined {
  const set = new Set(held);
  return wanted.find((s) => !set.has(s));
}

/** Sorted, de-duplicated scopes (how they are stored and shown). */
export function normalizeScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes)].sort((a, b) => ALL_SCOPES.indexOf(a) - ALL_SCOPES.indexOf(b));
}
