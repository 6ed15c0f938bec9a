import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/accounts/users.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, shanghai } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { bearer, makeKey, makeUser } from '../api/helpers/accounts.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { formBrowser } from '../helpers/form-browser.js';
import QRCode from 'qrcode';

/**
 * Sighting reports over the API: one report alone never counts, an independent second one or
 * another source's sighting makes it an observation of source `reports`; the rules refuse what
 * cannot be true, naming the field; moderators decide, and their decisions are corrections
 * undone through the audit trail; floods stop at the limits without touching other data.
 */
const t = useTestDatabase();
const YMD = '20260805';
const DAY = serviceDayFromYmd(YMD);
const NOW = shanghai(YMD, '20:00') * 1000;
let app: ApiApp;
let admin: User;
let adminKey: string;
let moderatorKey: string;
const keys: string[] = [];

/** An account made ten days before NOW (not new), with a key. */
const accounts: { username: string; password: string }[] = [];
async function oldAccount(prefix: string, role: 'user' | 'moderator' | 'admin' = 'user') {
  const u = await makeUser(t.current.db, prefix, role);
  await t.current.db.query(`UPDATE users SET created_at = to_timestamp($2) WHERE id = $1`, [
    u.userId,
    NOW / 1000 - 10 * 86400,
  ]);
  accounts.push(u);
  return {
    user: u,
    key: await makeKey(t.current.db, u, {
      activeFrom: new Date(NOW - 86400_000),
      expiresAt: new Date(NOW + 30 * 86400_000),
    }),
  };
}

const post = (key: string, payload: object, ip = '203.0.113.1') =>
  app.inject({
    method: 'POST',
    url: '/api/v2/reports',
    headers: bearer(key),
    payload,
    remoteAddress: ip,
  });

async function recordsOf(day: number): Promise<string[]> {
  const r = await t.current.db.query<{ x: string }>(
    `SELECT d.train_code || ' ' || e.code || ' ' || array_to_string(d.sources, ',') AS x
       FROM daily_records d JOIN emus e ON e.id = d.emu_id WHERE d.service_day = $1 ORDER BY 1`,
    [day],
  );
  return r.rows.map((x) => x.x);
}

async function reportObservations(): Promise<number> {
  const r = await t.current.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM observations WHERE source = 'reports'`,
  );
  return Number(r.rows[0]!.n);
}

beforeAll(async () => {
  const { db } = t.current;
  await ingestSightings(db, [
    {
      observedAt: shanghai(YMD, '08:00'),
      trainCode: 'G1',
      emuCode: 'CR400AF-2001',
      source: 'board',
      ref: 'b1',
    },
    {
      observedAt: shanghai(YMD, '08:30'),
      trainCode: 'G1',
      emuCode: 'CR400AF-2001',
      source: 'board',
      ref: 'b2',
    },
    {
      observedAt: shanghai(YMD, '09:00'),
      trainCode: 'G7',
      emuCode: 'CR400BF-5001',
      source: 'board',
      ref: 'b3',
    },
  ]);
  await db.query(
    `INSERT INTO train_reference_models (train_code, model, weighted_share, window_start, window_end)
     VALUES ('G5', 'CR400AF', 1, $1, $1)`,
    [DAY - 10],
  );
  await buildDailyRecords(db, DAY);
  ({ user: admin, key: adminKey } = await oldAccount('admin', 'admin'));
  ({ key: moderatorKey } = await oldAccount('mod', 'moderator'));
  for (let i = 0; i < 3; i++) keys.push((await oldAccount('r')).key);
  app = await makeApp(db, { clock: () => NOW });
});
afterAll(async () => {
  await app?.close();
});

describe('POST /api/v2/reports', () => {
  it('one report alone stays pending; an independent second makes both count after the rebuild', async () => {
    const first = await post(keys[0]!, { trainCode: 'G3', emuCode: 'CR400AF-2002', date: YMD });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({ status: 'pending' });
    // The same account again answers the same report; another account on the same address does not corroborate.
    const again = await post(keys[0]!, { trainCode: 'G3', emuCode: 'CR400AF2002', date: YMD });
    expect(again.json().data.id).toBe(first.json().data.id);
    const sameAddress = await post(keys[1]!, {
      trainCode: 'G3',
      emuCode: 'CR400AF-2002',
      date: YMD,
    });
    expect(sameAddress.json().data.status).toBe('pending');
    expect(await reportObservations()).toBe(0);
    await buildDailyRecords(t.current.db, DAY);
    expect((await recordsOf(DAY)).some((r) => r.startsWith('G3 '))).toBe(false);

    const second = await post(
      keys[2]!,
      { trainCode: 'G3', emuCode: 'CR400AF-2002', date: YMD },
      '198.51.100.7',
    );
    expect(second.json().data).toMatchObject({ status: 'accepted' });
    expect(await reportObservations()).toBe(2);
    const stale = await t.current.db.query('SELECT 1 FROM stale_days WHERE service_day = $1', [
      DAY,
    ]);
    expect(stale.rowCount).toBe(1);
    await buildDailyRecords(t.current.db, DAY);
    expect(await recordsOf(DAY)).toContain('G3 CR400AF-2002 reports');
  });

  it("another source's sighting of the same train, unit and day corroborates at once", async () => {
    const r = await post(keys[0]!, { trainCode: 'G7', emuCode: 'CR400BF-5001', date: YMD });
    expect(r.json().data).toMatchObject({
      status: 'accepted',
      reason: 'corroborated by source board',
    });
  });

  it('refuses with a 400 naming the field and why', async () => {
    const cases: [object, string][] = [
      [
        { trainCode: 'G1', emuCode: 'CR400AF-2001', date: '20260806' },
        'date: a future day cannot be reported',
      ],
      [
        { trainCode: 'G1', emuCode: 'CR400AF-2001', date: '20260801' },
        'date: more than 3 days back',
      ],
      [
        { trainCode: 'G1', emuCode: 'CR400AF-2001', date: '2026-08-05' },
        'date: expected a real date YYYYMMDD',
      ],
      [
        { trainCode: 'XYZ1', emuCode: 'CR400AF-2001', date: YMD },
        'trainCode: XYZ is not a train-number prefix in use',
      ],
      [{ trainCode: 'G1', emuCode: 'banana', date: YMD }, 'emuCode: "banana": not the form'],
      [
        { trainCode: 'G5', emuCode: 'CR400BF-5003', date: YMD },
        'emuCode: CR400BF-5003 is a CR400BF; G5 runs with CR400AF',
      ],
      [
        {
          trainCode: 'G9',
          emuCode: 'CR400AF-2001',
          date: YMD,
          observedAt: `2026-08-05T08:15:00+08:00`,
        },
        'emuCode: CR400AF-2001 ran G1 at that time',
      ],
      [
        {
          trainCode: 'G9',
          emuCode: 'CR400AF-2001',
          date: YMD,
          observedAt: `2026-08-05T23:15:00+08:00`,
        },
        'observedAt: in the future',
      ],
    ];
    for (const [body, message] of cases) {
      const r = await post(keys[1]!, body);
      expect(r.statusCode, message).toBe(400);
      expect(r.json().error.code).toBe('invalid_param');
      expect(r.json().error.message).toContain(message);
    }
    const missing = await post(keys[1]!, { trainCode: 'G1', date: YMD });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toMatch(/emuCode/);
    const anonymous = await app.inject({
      method: 'POST',
      url: '/api/v2/reports',
      payload: { trainCode: 'G1', emuCode: 'CR400AF-2001', date: YMD },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('a new account waits for a moderator and corroborates nothing', async () => {
    const fresh = await makeUser(t.current.db, 'fresh');
    await t.current.db.query(`UPDATE users SET created_at = to_timestamp($2) WHERE id = $1`, [
      fresh.userId,
      NOW / 1000 - 3600,
    ]);
    const key = await makeKey(t.current.db, fresh, {
      activeFrom: new Date(NOW - 86400_000),
      expiresAt: new Date(NOW + 30 * 86400_000),
    });
    const a = await post(
      key,
      { trainCode: 'G11', emuCode: 'CR400AF-2011', date: YMD },
      '192.0.2.50',
    );
    expect(a.json().data).toMatchObject({
      status: 'pending',
      reason: 'waiting for a moderator: the account is new',
    });
    const b = await post(keys[0]!, { trainCode: 'G11', emuCode: 'CR400AF-2011', date: YMD });
    expect(b.json().data.status).toBe('pending');
  });
});

describe('moderation', () => {
  it('lists the queue for moderators only', async () => {
    expect(
      (await app.inject({ method: 'GET', url: '/api/v2/admin/reports', headers: bearer(keys[0]!) }))
        .statusCode,
    ).toBe(403);
    const q = await app.inject({
      method: 'GET',
      url: '/api/v2/admin/reports?status=pending',
      headers: bearer(moderatorKey),
    });
    expect(q.statusCode).toBe(200);
    const items = q.json().data.items as {
      trainCode: string;
      status: string;
      reporter: { username: string };
    }[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.status === 'pending')).toBe(true);
    expect(items[0]).toMatchObject({
      trainCode: 'G3',
      emuCode: 'CR400AF-2002',
      date: YMD,
      reporter: { username: expect.any(String) },
    });
  });

  it("refuses an accepted report out of the records, and the refusal's undo brings it back", async () => {
    const list = await app.inject({
      method: 'GET',
      url: '/api/v2/admin/reports?status=accepted',
      headers: bearer(adminKey),
    });
    const g3 = (list.json().data.items as { id: number; trainCode: string }[]).filter(
      (i) => i.trainCode === 'G3',
    );
    expect(g3).toHaveLength(2);
    for (const r of g3) {
      const refused = await app.inject({
        method: 'POST',
        url: `/api/v2/admin/reports/${r.id}/refuse`,
        headers: bearer(moderatorKey),
        payload: { reason: 'the photo shows CR400AF-2020' },
      });
      expect(refused.statusCode).toBe(200);
      expect(refused.json().data.report.status).toBe('refused');
    }
    const twice = await app.inject({
      method: 'POST',
      url: `/api/v2/admin/reports/${g3[0]!.id}/refuse`,
      headers: bearer(moderatorKey),
      payload: { reason: 'again' },
    });
    expect(twice.statusCode).toBe(409);
    await buildDailyRecords(t.current.db, DAY);
    expect((await recordsOf(DAY)).some((r) => r.startsWith('G3 '))).toBe(false);

    const trail = await app.inject({
      method: 'GET',
      url: '/api/v2/admin/corrections',
      headers: bearer(adminKey),
    });
    const decisions = (
      trail.json().data.items as { id: number; kind: string; reportId?: number }[]
    ).filter((c) => c.kind === 'report-refuse');
    expect(decisions.map((d) => d.reportId).sort()).toEqual(g3.map((r) => r.id).sort());
    const undo = await app.inject({
      method: 'POST',
      url: `/api/v2/admin/corrections/${decisions[0]!.id}/undo`,
      headers: bearer(adminKey),
      payload: { reason: 'the photo was of another train' },
    });
    expect(undo.statusCode).toBe(200);
    await buildDailyRecords(t.current.db, DAY);
    expect(await recordsOf(DAY)).toContain('G3 CR400AF-2002 reports');
    const back = await app.inject({
      method: 'GET',
      url: '/api/v2/admin/reports?status=accepted',
      headers: bearer(adminKey),
    });
    expect((back.json().data.items as { id: number }[]).map((i) => i.id)).toContain(
      decisions[0]!.reportId,
    );
    expect(admin.role).toBe('admin');
  });

  it('a moderator accepts a pending report into the records', async () => {
    const q = await app.inject({
      method: 'GET',
      url: '/api/v2/admin/reports?status=pending',
      headers: bearer(moderatorKey),
    });
    const g11 = (q.json().data.items as { id: number; trainCode: string }[]).find(
      (i) => i.trainCode === 'G11',
    )!;
    const ok = await app.inject({
      method: 'POST',
      url: `/api/v2/admin/reports/${g11.id}/accept`,
      headers: bearer(moderatorKey),
      payload: { reason: 'seen on the photo' },
    });
    expect(ok.statusCode).toBe(200);
    await buildDailyRecords(t.current.db, DAY);
    expect(await recordsOf(DAY)).toContain('G11 CR400AF-2011 reports');
  });
});

describe('limits', () => {
  it('holds back a flood from one account and from many new accounts on one address, losing nothing else', async () => {
    const before = await recordsOf(DAY);
    const others = await t.current.db.query(
      `SELECT count(*) FROM observations WHERE source <> 'reports'`,
    );
    const { key } = await oldAccount('flood');
    const flood = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        post(
          key,
          { trainCode: `G${101 + i}`, emuCode: `CR400AF-${2101 + i}`, date: YMD },
          '198.18.0.1',
        ),
      ),
    );
    const codes = flood.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(20);
    expect(codes.filter((c) => c === 429)).toHaveLength(10);

    const burst: Promise<{ statusCode: number }>[] = [];
    for (let i = 0; i < 45; i++) {
      const u = await makeUser(t.current.db, 'sock');
      const k = await makeKey(t.current.db, u, {
        activeFrom: new Date(NOW - 86400_000),
        expiresAt: new Date(NOW + 30 * 86400_000),
      });
      burst.push(
        post(
          k,
          { trainCode: 'G201', emuCode: 'CR400AF-2201', date: YMD },
          `2001:db8:1:1::${(i + 1).toString(16)}`,
        ),
      );
    }
    const got = (await Promise.all(burst)).map((r) => r.statusCode);
    expect(got.filter((c) => c === 200)).toHaveLength(40);
    expect(got.filter((c) => c === 429)).toHaveLength(5);
    const pending = await t.current.db.query(
      `SELECT count(*) FROM sighting_reports WHERE train_code = 'G201' AND status = 'pending'`,
    );
    expect(Number(pending.rows[0]!.count)).toBe(40);

    await buildDailyRecords(t.current.db, DAY);
    expect(await recordsOf(DAY)).toEqual(before);
    expect(
      (await t.current.db.query(`SELECT count(*) FROM observations WHERE source <> 'reports'`))
        .rows,
    ).toEqual(others.rows);
  });
});

/** Signs in through /login; the session is moved to be valid at the injected time. */
async function signedIn(account: { username: string; password: string }) {
  const b = formBrowser(app);
  await b.signIn(account.username, account.password);
  await t.current.db.query(
    `UPDATE credentials SET active_from = to_timestamp($1), expires_at = to_timestamp($2)
      WHERE issuer = 'webapp'`,
    [NOW / 1000 - 3600, NOW / 1000 + 86400],
  );
  return b;
}

describe('pages', () => {
  const XSS = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>';

  it('the train and unit pages link to the report form, which refuses a hostile report and shows it escaped', async () => {
    const page = await app.inject({ url: '/train/G1', headers: { 'accept-language': 'en' } });
    expect(page.body).toContain('href="/report?train=G1"');
    const browser = await signedIn(accounts[2]!);
    const form = await browser.get('/report?train=G1');
    expect(form.statusCode).toBe(200);
    expect(form.headers['cache-control']).toBe('no-store');
    const csrf = browser.csrfOf(form.body);
    const hostile = await browser.post('/report', {
      _csrf: csrf,
      trainCode: XSS,
      emuCode: XSS,
      date: XSS,
      observedAt: XSS,
    });
    expect(hostile.statusCode).toBe(400);
    expect(hostile.body).toContain('trainCode:');
    expect(hostile.body).not.toContain('<script>');
    expect(hostile.body).not.toContain('<img');
    expect(hostile.body).toContain('&lt;script&gt;');
    const noToken = await browser.post('/report', {
      trainCode: 'G1',
      emuCode: 'CR400AF-2001',
      date: YMD,
    });
    expect(noToken.statusCode).toBe(403);
    const sent = await browser.post('/report', {
      _csrf: csrf,
      trainCode: 'G21',
      emuCode: 'CR400AF-2021',
      date: YMD,
      observedAt: '',
    });
    expect(sent.statusCode).toBe(200);
    expect(sent.body).toContain('Waiting');
  });

  it('/admin/reports: the queue for moderators, decisions with CSRF, hostile reasons escaped', async () => {
    const browser = await signedIn(accounts[2]!);
    expect((await browser.get('/admin/reports')).statusCode).toBe(403);
    const mod = await signedIn(accounts[1]!);
    const queue = await mod.get('/admin/reports');
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain('G21');
    const id =
      /id="report-(\d+)"[\s\S]*?G21/.exec(queue.body)?.[1] ?? /report-(\d+)/.exec(queue.body)![1];
    const rows = await t.current.db.query<{ id: string }>(
      `SELECT id FROM sighting_reports WHERE train_code = 'G21'`,
    );
    const g21 = rows.rows[0]!.id;
    expect(id).toBeDefined();
    const refused = await mod.post(`/admin/reports/${g21}/refuse`, {
      _csrf: mod.csrfOf(queue.body),
      reason: XSS,
    });
    expect(refused.statusCode).toBe(303);
    const list = await mod.get('/admin/reports?status=refused');
    expect(list.body).toContain('G21');
    expect(list.body).not.toContain('<script>alert');
    expect(list.body).not.toContain('<img src=x');
    const forged = await mod.post(`/admin/reports/${g21}/accept`, { reason: 'no token' });
    expect(forged.statusCode).toBe(403);
    // A decision on a report that does not exist: the reason as an alert, a way back to the queue.
    const missing = await mod.post('/admin/reports/999999999/accept', {
      _csrf: mod.csrfOf(queue.body),
      reason: 'seen it myself',
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toMatch(/<p class="warn" role="alert">\s*[^<]*999999999/);
    expect(missing.body).toContain('href="/admin/reports"');
  });
});

describe('photos', () => {
  const put = (key: string, id: number, body: Buffer, type = 'image/png') =>
    app.inject({
      method: 'PUT',
      url: `/api/v2/reports/${id}/photo`,
      headers: { ...bearer(key), 'content-type': type },
      payload: body,
    });

  it("refuses 50 MB (413), HTML as a PNG, and another account's report; keeps the QR text", async () => {
    const mine = await post(keys[2]!, { trainCode: 'G31', emuCode: 'CR400AF-2031', date: YMD });
    const id = mine.json().data.id as number;
    const big = await put(keys[2]!, id, Buffer.alloc(50 * 1024 * 1024, 0x89));
    expect(big.statusCode).toBe(413);
    const html = await put(keys[2]!, id, Buffer.from('<html><script>alert(1)</script></html>'));
    expect(html.statusCode).toBe(400);
    expect(html.json().error.message).toBe('photo: not a JPEG, PNG or WebP image');
    const qr = await QRCode.toBuffer('CR400AF-Z-2031-05-12A', { width: 300 });
    expect((await put(keys[1]!, id, qr)).statusCode).toBe(404);
    const ok = await put(keys[2]!, id, qr);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.qrText).toBe('CR400AF-Z-2031-05-12A');
    const q = await app.inject({
      method: 'GET',
      url: '/api/v2/admin/reports?status=pending',
      headers: bearer(moderatorKey),
    });
    const item = (q.json().data.items as { id: number; hasPhoto: boolean; qrText: string }[]).find(
      (i) => i.id === id,
    )!;
    expect(item).toMatchObject({ hasPhoto: true, qrText: 'CR400AF-Z-2031-05-12A' });
  });
});
