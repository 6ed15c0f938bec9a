/**
 * The differential harness's view of a site (WordPress or ours): one REST call as a role, the
 * answer with its JSON parsed. Paths are REST routes (`/wp/v2/posts`); the client adds
 * `/wp-json` and the credentials of the role.
 */
export const ORACLE_ROLES = [
  'administrator',
  'editor',
  'author',
  'contributor',
  'subscriber',
] as const;
export type OracleRole = (typeof ORACLE_ROLES)[number];

/**
 * Who calls: a role (its application password), `anonymous`, or an authentication case of the
 * application-password tests (a wrong password, the e-mail address as user name, an unknown user).
 */
export type OracleCaller =
  OracleRole | 'anonymous' | 'bad-password' | 'email-username' | 'unknown-user' | 'malformed-basic';

export interface OracleCall {
  method: string;
  path: string;
  /** The query string as sent, without `?` ('' for none). */
  query?: string;
  body?: unknown;
  caller: OracleCaller;
}

export interface OracleAnswer {
  status: number;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of any route
  body: any;
}

export type OracleClient = (call: OracleCall) => Promise<OracleAnswer>;

/** The users of both sites: the same user names, e-mail addresses and roles. */
export interface OracleUser {
  username: string;
  email: string;
  password: string;
}
export type OracleUsers = Record<OracleRole, OracleUser>;

export function usernameOf(role: OracleRole): string {
  return role === 'administrator' ? 'admin' : `${role}1`;
}

/** The Authorization header for a caller, or undefined for an anonymous call. */
export function authorizationFor(caller: OracleCaller, users: OracleUsers): string | undefined {
  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  switch (caller) {
    case 'anonymous':
      return undefined;
    case 'bad-password':
      return basic(users.author.username, 'abcd efgh ijkl mnop qrst uvwx');
    case 'email-username':
      return basic(users.author.email, users.author.password);
    case 'unknown-user':
      return basic('nobody-here', users.author.password);
    case 'malformed-basic':
      return 'Basic !!!not-base64';
    default:
      return basic(users[caller].username, users[caller].password);
  }
}

/** `path?query` for a call (the path percent-encoded as a client would send it). */
export function callUrl(call: OracleCall): string {
  const path = call.path
    .split('/')
    .map((s) => encodeURIComponent(decodeURIComponent(s)))
    .join('/');
  return `/wp-json${path}${call.query ? `?${call.query}` : ''}`;
}
