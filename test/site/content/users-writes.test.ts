import { beforeAll, describe, expect, it } from 'vitest';
import { authenticateSecret, issueCredential } from '../../../src/domain/accounts/credentials.js';
import { verifyLogin } from '../../../src/domain/accounts/users.js';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';

const STRONG = 'violet-harbour-nine-kettles';

/** WordPress 6.1's users write endpoints on the site's accounts. */
describe('users controller: create, edit and delete accounts as WordPress does', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let editor: SiteAccountFixture;
  let author: SiteAccountFixture;
  let subscriber: SiteAccountFixture;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    editor = await site.account('editor', 'editor');
    author = await site.account('author', 'author');
    subscriber = await site.account('subscriber', 'subscriber');
  });

  const create = (auth: SiteAccountFixture | undefined, body: Record<string, unknown>) =>
    site.call('POST', '/wp-json/wp/v2/users', { auth, body });

  it('POST /wp/v2/users needs create_users (401 anonymous, 403 editor: rest_cannot_create_user)', async () => {
    const body = { username: 'newbie', email: 'newbie@example.test', password: STRONG };
    const anon = await create(undefined, body);
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_cannot_create_user']);
    const byEditor = await create(editor, body);
    expect([byEditor.status, byEditor.body.code]).toEqual([403, 'rest_cannot_create_user']);
  });

  it('an administrator creates a user: 201, Location, edit context, no password echoed; it can sign in', async () => {
    const r = await create(admin, {
      username: 'writer1',
      email: 'Writer1@Example.test',
      password: STRONG,
      roles: ['author'],
      name: 'Writer One',
      first_name: 'Wri',
      last_name: 'Ter',
    });
    expect(r.status).toBe(201);
    expect(r.headers.location).toMatch(new RegExp(`/wp-json/wp/v2/users/${r.body.id}$`));
    expect(r.body).toMatchObject({
      username: 'writer1',
      email: 'Writer1@Example.test',
      name: 'Writer One',
      first_name: 'Wri',
      last_name: 'Ter',
      roles: ['author'],
      locale: 'en_US',
    });
    expect(r.body.capabilities.publish_posts).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain(STRONG);
    expect(r.body).not.toHaveProperty('password');
    expect(await verifyLogin(site.db, 'writer1', STRONG)).toBeDefined();
    // Without roles: the default role (subscriber).
    const plain = await create(admin, {
      username: 'plain1',
      email: 'plain1@example.test',
      password: STRONG,
    });
    expect(plain.body.roles).toEqual(['subscriber']);
  });

  it("refuses what WordPress refuses, with WordPress's codes", async () => {
    const missing = await create(admin, { username: 'x1234' });
    expect([missing.status, missing.body.code]).toEqual([400, 'rest_missing_callback_param']);
    expect(missing.body.data.params.sort()).toEqual(['email', 'password']);
    const badName = await create(admin, {
      username: 'no spaces!',
      email: 'a@example.test',
      password: STRONG,
    });
    expect([badName.status, badName.body.code]).toEqual([400, 'rest_invalid_param']);
    expect(badName.body.data.details.username.code).toBe('rest_user_invalid_username');
    const badEmail = await create(admin, {
      username: 'someone',
      email: 'not-an-address',
      password: STRONG,
    });
    expect([badEmail.status, badEmail.body.code]).toEqual([400, 'rest_invalid_param']);
    expect(Object.keys(badEmail.body.data.params)).toEqual(['email']);
    for (const password of ['', 'back\\slash-violet-harbour', 'password']) {
      const weak = await create(admin, { username: 'someone', email: 'x@example.test', password });
      expect([password, weak.status, weak.body.code]).toEqual([
        password,
        400,
        'rest_invalid_param',
      ]);
      expect(weak.body.data.details.password.code).toBe('rest_user_invalid_password');
    }
    const taken = await create(admin, {
      username: 'WRITER1',
      email: 'z@example.test',
      password: STRONG,
    });
    expect([taken.status, taken.body.code]).toEqual([400, 'existing_user_login']);
    const takenEmail = await create(admin, {
      username: 'other1',
      email: 'writer1@EXAMPLE.test',
      password: STRONG,
    });
    expect([takenEmail.status, takenEmail.body.code]).toEqual([400, 'existing_user_email']);
    const role = await create(admin, {
      username: 'other2',
      email: 'other2@example.test',
      password: STRONG,
      roles: ['pirate'],
    });
    expect([role.status, role.body.code]).toEqual([400, 'rest_user_invalid_role']);
  });

  it('a user edits their own profile (any role); others only with edit_users', async () => {
    const me = await site.call('POST', '/wp-json/wp/v2/users/me', {
      auth: subscriber,
      body: { first_name: 'Sub', nickname: 'subby', meta: { persisted_preferences: { a: 1 } } },
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ first_name: 'Sub', nickname: 'subby', username: 'subscriber' });
    expect(Object.keys(me.body.meta)).toEqual(['persisted_preferences']);
    const other = await site.call('PUT', `/wp-json/wp/v2/users/${author.id}`, {
      auth: editor,
      body: { first_name: 'Nope' },
    });
    expect([other.status, other.body.code]).toEqual([403, 'rest_cannot_edit']);
    const byAdmin = await site.call('PATCH', `/wp-json/wp/v2/users/${author.id}`, {
      auth: admin,
      body: { description: 'Writes guides.', email: 'author@example.test' },
    });
    expect([byAdmin.status, byAdmin.body.description, byAdmin.body.email]).toEqual([
      200,
      'Writes guides.',
      'author@example.test',
    ]);
    const rename = await site.call('POST', `/wp-json/wp/v2/users/${author.id}`, {
      auth: admin,
      body: { username: 'renamed' },
    });
    expect([rename.status, rename.body.code]).toEqual([400, 'rest_user_invalid_argument']);
    const stolenEmail = await site.call('POST', '/wp-json/wp/v2/users/me', {
      auth: subscriber,
      body: { email: 'AUTHOR@example.test' },
    });
    expect([stolenEmail.status, stolenEmail.body.code]).toEqual([400, 'rest_user_invalid_email']);
  });

  it('roles: promote_users only (rest_cannot_edit_roles); an administrator cannot drop their own', async () => {
    const self = await site.call('POST', '/wp-json/wp/v2/users/me', {
      auth: author,
      body: { roles: ['editor'] },
    });
    expect([self.status, self.body.code]).toEqual([403, 'rest_cannot_edit_roles']);
    const demote = await site.call('POST', '/wp-json/wp/v2/users/me', {
      auth: admin,
      body: { roles: ['editor'] },
    });
    expect([demote.status, demote.body.code]).toEqual([403, 'rest_user_invalid_role']);
    const promote = await site.call('POST', `/wp-json/wp/v2/users/${subscriber.id}`, {
      auth: admin,
      body: { roles: ['contributor'] },
    });
    expect([promote.status, promote.body.roles]).toEqual([200, ['contributor']]);
  });

  it('a password set through REST is hashed, never echoed, and ends web sessions', async () => {
    const r = await site.call('POST', `/wp-json/wp/v2/users/${editor.id}`, {
      auth: admin,
      body: { password: STRONG },
    });
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).not.toContain(STRONG);
    expect(await verifyLogin(site.db, 'editor', STRONG)).toBeDefined();
    const stored = await site.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE id = $1',
      [editor.id],
    );
    expect(stored.rows[0]!.password_hash).not.toContain(STRONG);
  });

  it('DELETE needs delete_users, force=true (501 rest_trash_not_supported) and reassign', async () => {
    const victim = await site.account('victim', 'author');
    const heir = await site.account('heir', 'author');
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: victim,
      body: { title: 'by victim', status: 'publish' },
    });
    const key = await issueCredential(site.db, {
      userId: String(victim.id),
      issuer: 'api',
      scopes: [],
      dailyTokenLimit: 10,
    });
    const url = `/wp-json/wp/v2/users/${victim.id}`;
    const byEditor = await site.call('DELETE', `${url}?force=true&reassign=${heir.id}`, {
      auth: editor,
    });
    expect([byEditor.status, byEditor.body.code]).toEqual([403, 'rest_user_cannot_delete']);
    const noReassign = await site.call('DELETE', `${url}?force=true`, { auth: admin });
    expect([noReassign.status, noReassign.body.code]).toEqual([400, 'rest_missing_callback_param']);
    const noForce = await site.call('DELETE', `${url}?reassign=${heir.id}`, { auth: admin });
    expect([noForce.status, noForce.body.code]).toEqual([501, 'rest_trash_not_supported']);
    const self = await site.call('DELETE', `${url}?force=true&reassign=${victim.id}`, {
      auth: admin,
    });
    expect([self.status, self.body.code]).toEqual([400, 'rest_user_invalid_reassign']);
    const ok = await site.call('DELETE', `${url}?force=true&reassign=${heir.id}`, { auth: admin });
    expect([ok.status, ok.body.deleted, ok.body.previous.username]).toEqual([200, true, 'victim']);
    const moved = await site.call('GET', `/wp-json/wp/v2/posts/${post.body.id}`);
    expect(moved.body.author).toBe(heir.id);
    // Nothing of the account is left to sign in with.
    const left = await site.db.query(
      `SELECT (SELECT count(*) FROM credentials WHERE user_id = $1)::int AS keys,
              (SELECT count(*) FROM site_app_passwords WHERE user_id = $1)::int AS apps`,
      [victim.id],
    );
    expect(left.rows[0]).toEqual({ keys: 0, apps: 0 });
    expect((await authenticateSecret(site.db, key.secret)).ok).toBe(false);
    const gone = await site.call('GET', '/wp-json/wp/v2/users/me', { auth: victim });
    expect(gone.status).toBe(401);
    const again = await site.call('GET', url, { auth: admin });
    expect([again.status, again.body.code]).toEqual([404, 'rest_user_invalid_id']);
  });

  it('DELETE with reassign=false deletes the posts too', async () => {
    const victim = await site.account('victim2', 'author');
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: victim,
      body: { title: 'doomed', status: 'publish' },
    });
    const ok = await site.call(
      'DELETE',
      `/wp-json/wp/v2/users/${victim.id}?force=true&reassign=false`,
      {
        auth: admin,
      },
    );
    expect(ok.status).toBe(200);
    const gone = await site.call('GET', `/wp-json/wp/v2/posts/${post.body.id}`);
    expect(gone.status).toBe(404);
  });

  it('Allow lists the methods each caller may use, as WordPress', async () => {
    const allow = async (path: string, auth?: SiteAccountFixture) =>
      String((await site.call('GET', path, { auth })).headers.allow ?? '')
        .split(/,\s*/)
        .sort()
        .join(',');
    expect(await allow('/wp-json/wp/v2/users', admin)).toBe('GET,POST');
    expect(await allow('/wp-json/wp/v2/users', author)).toBe('GET');
    expect(await allow(`/wp-json/wp/v2/users/${author.id}`, admin)).toBe(
      'DELETE,GET,PATCH,POST,PUT',
    );
    expect(await allow(`/wp-json/wp/v2/users/${author.id}`, author)).toBe('GET,PATCH,POST,PUT');
    expect(await allow('/wp-json/wp/v2/users/me', subscriber)).toBe('GET,PATCH,POST,PUT');
    expect(await allow('/wp-json/wp/v2/users/me', admin)).toBe('DELETE,GET,PATCH,POST,PUT');
    expect(await allow('/wp-json/wp/v2/users/me')).toBe('GET');
  });

  it("a site administrator does not edit or delete an operator's account (account role admin)", async () => {
    const operator = await site.account('operator', 'subscriber');
    await site.db.query(`UPDATE users SET role = 'admin' WHERE id = $1`, [operator.id]);
    const url = `/wp-json/wp/v2/users/${operator.id}`;
    const edit = await site.call('POST', url, { auth: admin, body: { password: STRONG } });
    expect([edit.status, edit.body.code]).toEqual([403, 'rest_cannot_edit']);
    const roles = await site.call('POST', url, { auth: admin, body: { roles: ['subscriber'] } });
    expect([roles.status, roles.body.code]).toEqual([403, 'rest_cannot_edit_roles']);
    const del = await site.call('DELETE', `${url}?force=true&reassign=false`, { auth: admin });
    expect([del.status, del.body.code]).toEqual([403, 'rest_user_cannot_delete']);
    // The operator edits their own profile.
    const own = await site.call('POST', '/wp-json/wp/v2/users/me', {
      auth: operator,
      body: { nickname: 'op' },
    });
    expect([own.status, own.body.nickname]).toEqual([200, 'op']);
  });
});
