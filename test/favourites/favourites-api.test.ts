import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { favouriteStatuses } from '../../src/domain/favourites/favourite-status.js';
import { MAX_FAVOURITES } from '../../src/domain/favourites/favourites-store.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { bearer, makeKey, makeUser } from '../api/helpers/accounts.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { loadFixtureWeek, shanghaiClock } from '../api/helpers/fixture-week.js';

interface Item {
  kind: string;
  code: string;
  status?: string;
  units?: string[];
  trains?: string[];
  latest?: { date: string };
  trainsToday?: number;
}
type List = { ok: boolean; meta: { remain: number; cost: number }; data: { items: Item[] } };

const clock = shanghaiClock('20260816');
/** Live from the app's day (the fixture week's) until after the machine's. */
const LIVE = {
  activeFrom: new Date(clock()),
  expiresAt: new Date(Math.max(Date.now(), clock()) + 86_400_000),
};

describe('/api/v2/auth/favorites', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    await loadFixtureWeek(t.current.db);
    app = await makeApp(t.current.db, { clock });
    key = await makeKey(t.current.db, await makeUser(t.current.db, 'fan'), LIVE);
    otherKey = await makeKey(t.current.db, await makeUser(t.current.db, 'other'), LIVE);
  });
  afterAll(async () => app?.close());

  const put = (payload: Record<string, unknown>, secret = key) =>
    app.inject({ method: 'PUT', url: '/api/v2/auth/favorites', headers: bearer(secret), payload });
  const list = async (secret = key) =>
    (await app.inject({ url: '/api/v2/auth/favorites', headers: bearer(secret) })).json<List>();

  it('adds in canonical form, is idempotent, lists with status, deletes', async () => {
    const added = await put({ kind: 'train', code: 'g1' });
    expect(added.statusCode).toBe(200);
    const body = added.json<List>();
    expect(body.ok).toBe(true);
    expect(body.meta.cost).toBe(1);
    expect(body.data.items).toEqual([
      expect.objectContaining({ kind: 'train', code: 'G1', status: expect.any(String) }),
    ]);
    expect((await put({ kind: 'train', code: 'G1' })).json<List>().data.items).toHaveLength(1);
    await put({ kind: 'emu', code: 'cr400af2001' });
    await put({ kind: 'station', code: '上海虹桥' });
    const items = (await list()).data.items;
    expect(items.map((i) => `${i.kind}:${i.code}`)).toEqual([
      'train:G1',
      'emu:CR400AF-2001',
      'station:上海虹桥',
    ]);
    const [train, unit, station] = items;
    // G1 and CR400AF-2001 ran on the fixture week; whether today or not, their latest day shows.
    expect(train!.latest?.date).toMatch(/^202608\d\d$/);
    expect(unit!.latest?.date).toMatch(/^202608\d\d$/);
    if (train!.status === 'seen') expect(train!.units!.length).toBeGreaterThan(0);
    expect(station!.trainsToday).toBeGreaterThan(0);

    const removed = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/favorites?kind=emu&code=${encodeURIComponent('CR400AF-2001')}`,
      headers: bearer(key),
    });
    expect(removed.statusCode).toBe(200);
    expect(removed.json<List>().data.items.map((i) => i.code)).toEqual(['G1', '上海虹桥']);
  });

  it("tells a train's status from the clock: seen, expected, missing, not running", async () => {
    const { db } = t.current;
    const g1 = [{ kind: 'train' as const, code: 'G1', createdAt: new Date(0) }];
    const at = async (ymd: string, hh: number) =>
      (await favouriteStatuses(db, g1, shanghaiClock(ymd, hh)()))[0]!;
    expect(await at('20260816', 10)).toMatchObject({ status: 'seen', units: ['CR400AF-2001'] });
    // The day after the fixture week: due, and no unit seen; before and after it leaves.
    expect(await at('20260817', 0)).toMatchObject({
      status: 'expected',
      units: [],
      latest: { date: '20260816', units: ['CR400AF-2001'] },
    });
    expect(await at('20260817', 23)).toMatchObject({ status: 'missing' });
    // Before its first timetable and its first record.
    const before = await at('20260601', 10);
    expect(before).toMatchObject({ status: 'not_running', units: [] });
    expect(before).not.toHaveProperty('latest');
  });

  it('refuses a bad kind, an unknown code or a malformed body with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'plane', code: 'G1' }, 'kind'],
      [{ kind: 'train', code: 'G99999' }, 'code'],
      [{ kind: 'train', code: '<script>' }, 'code'],
      [{ kind: 'emu', code: 'XX-0000' }, 'code'],
      [{ kind: 'station', code: '没有这个站' }, 'code'],
      [{ kind: 'train' }, 'code'],
      [{ kind: 'train', code: 'G1', extra: 1 }, 'extra'],
    ];
    for (const [payload, field] of cases) {
      const res = await put(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('invalid_param');
      expect(res.json().error.message, JSON.stringify(payload)).toContain(field);
    }
    const badDelete = await app.inject({
      method: 'DELETE',
      url: '/api/v2/auth/favorites?kind=plane&code=G1',
      headers: bearer(key),
    });
    expect(badDelete.statusCode).toBe(400);
    expect(badDelete.json().error.message).toContain('kind');
  });

  it('serves a web session by its cookie, as a key', async () => {
    const user = await makeUser(t.current.db, 'browser');
    const { secret } = await issueCredential(t.current.db, {
      userId: user.userId,
      issuer: 'webapp',
      scopes: [...scopesOfRole('user')],
      dailyTokenLimit: 1000,
      ...LIVE,
    });
    const added = await app.inject({
      method: 'PUT',
      url: '/api/v2/auth/favorites',
      cookies: { token: secret },
      payload: { kind: 'emu', code: 'CR400AF-2001' },
    });
    expect(added.statusCode).toBe(200);
    const listed = await app.inject({ url: '/api/v2/auth/favorites', cookies: { token: secret } });
    expect(listed.json<List>().data.items.map((i) => i.code)).toEqual(['CR400AF-2001']);
  });

  it('needs a credential (401) holding api.auth.favorites (403)', async () => {
    expect((await app.inject('/api/v2/auth/favorites')).statusCode).toBe(401);
    const narrow = await makeKey(t.current.db, await makeUser(t.current.db, 'narrow'), {
      scopes: ['api.auth.me.read'],
      ...LIVE,
    });
    const refused = await put({ kind: 'train', code: 'G1' }, narrow);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'insufficient_scope',
      message: expect.stringContaining('api.auth.favorites'),
    });
  });

  it("never shows nor removes another user's favourites", async () => {
    expect((await list(otherKey)).data.items).toEqual([]);
    await app.inject({
      method: 'DELETE',
      url: '/api/v2/auth/favorites?kind=train&code=G1',
      headers: bearer(otherKey),
    });
    expect((await list()).data.items.map((i) => i.code)).toContain('G1');
  });

  it(`keeps the limit of ${MAX_FAVOURITES} under concurrent PUTs`, async () => {
    const { db } = t.current;
    const user = await makeUser(db, 'collector');
    const collector = await makeKey(db, user, LIVE);
    // 49 stored directly (the limit's check is the writer's, not the table's), then ten racing
    // PUTs of ten different trains: exactly one gets in.
    await db.query(
      `INSERT INTO favourites (user_id, kind, code)
       SELECT $1, 'station', 'station ' || n FROM generate_series(1, $2::int) n`,
      [user.userId, MAX_FAVOURITES - 1],
    );
    const trains = (
      await db.query<{ train_code: string }>(
        'SELECT DISTINCT train_code FROM daily_records ORDER BY train_code LIMIT 10',
      )
    ).rows.map((r) => r.train_code);
    expect(trains).toHaveLength(10);
    const answers = await Promise.all(
      trains.map((code) => put({ kind: 'train', code }, collector)),
    );
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    const refusals = answers.filter((a) => a.statusCode === 400);
    expect(refusals).toHaveLength(9);
    expect(refusals[0]!.json().error.message).toMatch(/^code: .*50/);
    const count = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM favourites WHERE user_id = $1',
      [user.userId],
    );
    expect(Number(count.rows[0]!.n)).toBe(MAX_FAVOURITES);
  });
});
