import { EMAIL_PATTERN } from '../accounts/users.js';
import type { Queryable } from '../../shared/db/db.js';
import { defaultSiteRole, type SiteRole } from './site-roles.js';
import type { SiteUser } from './site-user.js';

/** What the site shows of an account beyond its name (site_user_profiles; WordPress's user fields). */
export interface SiteProfile {
  /** The display name (WordPress's `name`); the username unless set. */
  displayName: string;
  firstName: string;
  lastName: string;
  /** The username unless set. */
  nickname: string;
  description: string;
  url: string;
  /** '' = the site's locale. */
  locale: string;
  /** User meta the site registers (persisted_preferences). */
  meta: Record<string, unknown>;
}

/** An account with what the site shows of it. */
export interface SiteAccount extends SiteUser {
  /** The accounts domain's role (`admin` = an operator of the product). */
  accountRole: string;
  email: string | null;
  bannedAt: Date | null;
  registeredAt: Date;
  profile: SiteProfile;
}

interface Row {
  id: string | number;
  username: string;
  email: string | null;
  account_role: string;
  site_role: SiteRole | null;
  banned_at: Date | string | null;
  created_at: Date | string;
  display_name: string | null;
  first_name: string | null;
  last_name: string | null;
  nickname: string | null;
  description: string | null;
  url: string | null;
  locale: string | null;
  meta: Record<string, unknown> | null;
}

const SELECT = `SELECT u.id, u.username, u.email, u.role AS account_role, r.role AS site_role, u.banned_at,
    u.created_at, p.display_name, p.first_name, p.last_name, p.nickname, p.description, p.url,
    p.locale, p.meta
  FROM users u LEFT JOIN site_roles r ON r.user_id = u.id
    LEFT JOIN site_user_profiles p ON p.user_id = u.id`;

/** An account's site role in SQL: its own row, else by its account role (as defaultSiteRole). */
const SITE_ROLE = `coalesce(r.role, CASE WHEN u.role = 'admin' THEN 'administrator' ELSE 'subscriber' END)`;

function toAccount(r: Row): SiteAccount {
  return {
    id: Number(r.id),
    username: r.username,
    role: r.site_role ?? defaultSiteRole(r.account_role),
    accountRole: r.account_role,
    email: r.email,
    bannedAt: r.banned_at === null ? null : new Date(r.banned_at),
    registeredAt: new Date(r.created_at),
    profile: {
      displayName: r.display_name ?? r.username,
      firstName: r.first_name ?? '',
      lastName: r.last_name ?? '',
      nickname: r.nickname ?? r.username,
      description: r.description ?? '',
      url: r.url ?? '',
      locale: r.locale ?? '',
      meta: r.meta ?? {},
    },
  };
}

export async function findSiteAccount(db: Queryable, id: number): Promise<SiteAccount | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const r = await db.query<Row>(`${SELECT} WHERE u.id = $1`, [id]);
  return r.rows[0] ? toAccount(r.rows[0]) : undefined;
}

export async function findSiteAccountByName(
  db: Queryable,
  username: string,
): Promise<SiteAccount | undefined> {
  const r = await db.query<Row>(`${SELECT} WHERE lower(u.username) = lower($1)`, [username]);
  return r.rows[0] ? toAccount(r.rows[0]) : undefined;
}

/**
 * The account an application password's user name names: the username, else (when it looks like
 * one) the e-mail address, in any case, as wp_authenticate_application_password looks them up.
 */
export async function findSiteAccountByLogin(
  db: Queryable,
  login: string,
): Promise<SiteAccount | undefined> {
  const byName = await findSiteAccountByName(db, login);
  if (byName || !EMAIL_PATTERN.test(login)) return byName;
  const r = await db.query<Row>(`${SELECT} WHERE lower(u.email) = lower($1)`, [login]);
  return r.rows[0] ? toAccount(r.rows[0]) : undefined;
}

export interface ListSiteAccountsOptions {
  include?: number[];
  exclude?: number[];
  search?: string;
  /**
   * Whether the caller may list users (`list_users`): WordPress then searches the columns the
   * term's form calls for (searchColumns); otherwise only id, login, slug and display name.
   */
  searchAllColumns?: boolean;
  roles?: string[];
  /** Only accounts with one of these slugs (a user's slug is its lower-case name). */
  slugs?: string[];
  /** Only accounts holding one of these roles too (`who=authors`). */
  anyRoleOf?: readonly string[];
  /** Only accounts that wrote a published post (WordPress's `has_published_posts`). */
  publishedOnly?: boolean;
  order?: 'asc' | 'desc';
  orderby?: 'id' | 'name' | 'username' | 'registered_date' | 'slug' | 'include';
  limit: number;
  offset: number;
}

/**
 * The columns a users search looks in, as WordPress's users controller and WP_User_Query choose
 * them: a caller without `list_users` searches id, login, slug (nicename) and display name; one
 * with it, the e-mail for a term with "@", login and id for a number, the URL for an address,
 * else login, URL, e-mail, slug and display name. Every column but the id is matched anywhere
 * in it (the controller wraps the term in `*`), case-insensitively as MySQL's collation does.
 */
function searchColumns(term: string, allColumns: boolean): string[] {
  const displayName = 'coalesce(p.display_name, u.username)';
  if (!allColumns) return ['u.id', 'u.username', 'lower(u.username)', displayName];
  if (term.includes('@')) return ['u.email'];
  // PHP's is_numeric.
  if (/^\s*[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?\s*$/i.test(term)) return ['u.username', 'u.id'];
  if (/^https?:\/\//.test(term)) return ['p.url'];
  return ['u.username', 'p.url', 'u.email', 'lower(u.username)', displayName];
}

export async function listSiteAccounts(
  db: Queryable,
  o: ListSiteAccountsOptions,
): Promise<{ total: number; items: SiteAccount[] }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (o.include?.length) where.push(`u.id = ANY(${p(o.include)}::bigint[])`);
  if (o.exclude?.length) where.push(`NOT (u.id = ANY(${p(o.exclude)}::bigint[]))`);
  if (o.search) {
    const like = p(`%${o.search.replace(/[\\%_]/g, '\\$&')}%`);
    const matches = searchColumns(o.search, o.searchAllColumns ?? false).map((column) =>
      column === 'u.id' ? `u.id::text = ${p(o.search)}` : `${column} ILIKE ${like}`,
    );
    where.push(`(${matches.join(' OR ')})`);
  }
  if (o.roles?.length) {
    where.push(`${SITE_ROLE} = ANY(${p(o.roles)}::text[])`);
  }
  if (o.slugs?.length) where.push(`lower(u.username) = ANY(${p(o.slugs)}::text[])`);
  if (o.anyRoleOf) {
    where.push(`${SITE_ROLE} = ANY(${p(o.anyRoleOf)}::text[])`);
  }
  if (o.publishedOnly) {
    where.push(
      `EXISTS (SELECT 1 FROM site_posts sp WHERE sp.author = u.id AND sp.status = 'publish' AND sp.type IN ('post', 'page'))`,
    );
  }
  const cond = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const dir = o.order === 'desc' ? 'DESC' : 'ASC';
  // The count takes the filter's parameters only (an unused one has no type: a server error).
  const countParams = [...params];
  const orderCol =
    o.orderby === 'id'
      ? 'u.id'
      : o.orderby === 'registered_date'
        ? 'u.created_at'
        : o.orderby === 'include' && o.include?.length
          ? `array_position(${p(o.include)}::bigint[], u.id)`
          : // WordPress's `name` is the display name.
            'lower(coalesce(p.display_name, u.username))';
  const total = await db.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM users u LEFT JOIN site_roles r ON r.user_id = u.id
       LEFT JOIN site_user_profiles p ON p.user_id = u.id ${cond}`,
    countParams,
  );
  const rows = await db.query<Row>(
    `${SELECT} ${cond} ORDER BY ${orderCol} ${dir}, u.id ${dir} LIMIT ${p(o.limit)} OFFSET ${p(o.offset)}`,
    params,
  );
  return { total: Number(total.rows[0]!.n), items: rows.rows.map(toAccount) };
}
