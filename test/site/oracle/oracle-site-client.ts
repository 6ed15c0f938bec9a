import { createAppPassword } from '../../../src/domain/content/app-passwords.js';
import { setSiteRole } from '../../../src/domain/content/site-roles.js';
import type { Db } from '../../../src/shared/db/db.js';
import type { SiteApp } from '../../../src/http/site/app.js';
import {
  authorizationFor,
  callUrl,
  ORACLE_ROLES,
  usernameOf,
  type OracleClient,
  type OracleUsers,
} from './oracle-client.js';

/** Our site's users, as the oracle's: the same names and roles, an application password each. */
export async function createOracleUsers(db: Db): Promise<OracleUsers> {
  const users = {} as OracleUsers;
  for (const role of ORACLE_ROLES) {
    const username = usernameOf(role);
    const email = `${username}@oracle.test`;
    const r = await db.query<{ id: string }>(
      `INSERT INTO users (username, email, password_hash) VALUES ($1, $2, 'not-a-hash') RETURNING id`,
      [username, email],
    );
    const id = Number(r.rows[0]!.id);
    await setSiteRole(db, id, role);
    const { password } = await createAppPassword(db, { userId: id, name: 'oracle' });
    users[role] = { username, email, password };
  }
  return users;
}

/** Our site through inject(), as the harness calls it. */
export function siteClient(app: SiteApp, users: OracleUsers): OracleClient {
  return async (call) => {
    const headers: Record<string, string> = {};
    const authorization = authorizationFor(call.caller, users);
    if (authorization) headers.authorization = authorization;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.inject({
      method: call.method as 'GET',
      url: callUrl(call),
      headers,
      ...(call.body !== undefined ? { payload: JSON.stringify(call.body) } : {}),
    });
    let body: unknown = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      /* not JSON */
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    }
    return { status: res.statusCode, headers: out, body };
  };
}
