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
];

export type Role = 'user' | 'admin';

const BY_NAME = new Map(SCOPE_CATALOGUE.map((s) => [s.name, s]));

/** Every scope name, in catalogue order. */
export const ALL_SCOPES: readonly string[] = SCOPE_CATALOGUE.map((s) => s.name);

/** The scopes anonymous callers hold. */
export const ANONYMOUS_SCOPES: readonly string[] = SCOPE_CATALOGUE.filter((s) => s.anonymous).map(
  (s) => s.name,
);

/** The scope of GetAuthMe (the session check). */
export const AUTH_ME_SCOPE = 'api.auth.me.read';

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
  return role === 'admin' ? ALL_SCOPES : USER_SCOPES;
}

/** The scopes a new API key gets when none are asked for: everything the user holds. */
export function defaultKeyScopes(role: Role): readonly string[] {
  return scopesOfRole(role);
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
