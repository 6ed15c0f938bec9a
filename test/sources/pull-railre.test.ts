import { afterEach, describe, expect, it } from 'vitest';
import { pullSource, SourcePullError } from '../../src/domain/sources/pull-source.js';
import { checkSourceSettings, SourceSettingError } from '../../src/domain/sources/source-config.js';
import { addSource, getSource } from '../../src/domain/sources/source-store.js';
import { fetchGet } from '../../src/shared/io/http-get.js';
import type { Db } from '../../src/shared/db/db.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { fakeRailre, type Garbage, type RailreRow } from './fake-railre.js';
import { fastClock } from './upstream.js';

const t = useTestDatabase();
const DAY = serviceDayFromYmd('20260814');
const clock = () => fastClock(Date.UTC(2026, 7, 14, 4));

const ROWS: RailreRow[] = [
  { date: '2026-08-14', emu_no: 'CRH380AL2541', train_no: 'G1/G2' },
  { date: '2026-08-13', emu_no: 'CRH380AL2541', train_no: 'G1/G2' },
  { date: '2026-08-14', emu_no: 'CR400AF2001', train_no: 'G5' },
  { date: '2026-08-14', emu_no: 'CR400BF5033', train_no: 'D3125' },
  { date: '2026-08-14', emu_no: 'CRH2A2010', train_no: 'C2001' },
];

let closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.map((c) => c()));
  closing = [];
});

async function serve(rows = ROWS, garbage: Record<string, Garbage> = {}) {
  const f = await fakeRailre(rows, garbage);
  closing.push(f.close);
  return f;
}

// One database for the file: each test its own source.
let serial = 0;
let rr = '';
async function add(db: Db, url: string, trains?: string) {
  rr = `rr${++serial}`;
  return addSource(
    db,
    checkSourceSettings({
      name: rr,
      kind: 'railre',
      url,
      rate: 5,
      ...(trains ? { trains } : {}),
    }),
  );
}

async function observations(db: Db) {
  const r = await db.query<{ o: string }>(
    `SELECT service_day || ' ' || train_code || ' ' || emu_code || ' ' || ref AS o
       FROM observations WHERE source = $1 ORDER BY 1`,
    [rr],
  );
  return r.rows.map((x) => x.o);
}

describe('pulling rail.re', () => {
  it('stores each row once, keyed by date, train and unit; a repeated pull adds nothing', async () => {
    const db = t.current.db;
    const f = await serve();
    await add(db, f.url, 'G1,G5,D3125,C2001');
    const c = clock();
    const first = await pullSource(db, rr, { clock: c, get: fetchGet, batchSize: 2 });
    expect(first.asked).toEqual({ items: 4, planned: 2, answered: 2 });
    expect(f.seen).toEqual(['/train/G1,G5', '/train/D3125,C2001']);
    expect(first.taken).toBe(4);
    // Paced at the source's rate (5/s): one wait of 200 ms between the two requests.
    expect(c.sleeps).toEqual([200]);
    expect(await observations(db)).toEqual([
      `${DAY} C2001 CRH2A2010 20260814/C2001/CRH2A-2010`,
      `${DAY} D3125 CR400BF5033 20260814/D3125/CR400BF-5033`,
      `${DAY} G1/G2 CRH380AL2541 20260814/G1/G2/CRH380AL-2541`,
      `${DAY} G5 CR400AF2001 20260814/G5/CR400AF-2001`,
    ]);
    const again = await pullSource(db, rr, { clock: clock(), get: fetchGet, batchSize: 2 });
    expect(again.taken).toBe(0);
    expect(again.duplicate).toBe(4);
    expect(await observations(db)).toHaveLength(4);
    const s = await getSource(db, rr);
    expect(s.lastError).toBeNull();
    expect(s.linesTaken).toBe(4);
  });

  it('reads a paired run as the rail.re file rows are read: G1/G2 counts for G1 and G2', async () => {
    const db = t.current.db;
    const f = await serve();
    await add(db, f.url);
    // One train asked alone: its history (newest first), both days.
    const r = await pullSource(db, rr, { clock: clock(), get: fetchGet, trains: ['G2'] });
    expect(f.seen).toEqual(['/train/G2']);
    expect(r.taken).toBe(2);
    const codes = await db.query<{ train_codes: string[]; service_day: number }>(
      `SELECT train_codes, service_day FROM observations WHERE source = $1 ORDER BY service_day`,
      [rr],
    );
    expect(codes.rows).toEqual([
      { train_codes: ['G1', 'G2'], service_day: DAY - 1 },
      { train_codes: ['G1', 'G2'], service_day: DAY },
    ]);
  });

  it('asks for the trains in force in the timetables when given none, skipping what rail.re has no page for', async () => {
    const db = t.current.db;
    const f = await serve();
    const stops: [string, string?, string?][] = [
      ['Beijingnan', undefined, '08:00'],
      ['Tianjin', '08:30'],
    ];
    await ingestTimetableLines(db, [
      timetable('G5', '20260801', stops),
      timetable('D3125', '20260801', stops),
      timetable('K101', '20260801', stops),
      timetable('G7', '20260901', stops),
    ]);
    await add(db, f.url);
    const r = await pullSource(db, rr, { clock: clock(), get: fetchGet, from: DAY, to: DAY });
    expect(f.seen).toEqual(['/train/D3125,G5']);
    expect(r.taken).toBe(2);
  });

  it.each<[Garbage, string]>([
    ['html', 'answer is HTML, not JSON (content-type text/html)'],
    ['object', 'body: expected an array of rows, got object'],
    ['too-many', "body: 31 rows, more than rail.re's 30"],
    ['500', 'HTTP 500'],
  ])('says an answer of %s on the source, keeps the other answers', async (kind, reason) => {
    const db = t.current.db;
    const f = await serve(ROWS, { D3125: kind });
    await add(db, f.url, 'G5,D3125,C2001');
    const err = await pullSource(db, rr, { clock: clock(), get: fetchGet, batchSize: 1 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SourcePullError);
    const partial = (err as SourcePullError).partial!;
    expect(partial.taken).toBe(2);
    expect(partial.asked).toEqual({ items: 3, planned: 3, answered: 2 });
    const s = await getSource(db, rr);
    expect(s.lastError).toBe(`source ${rr}: GET ${f.url}/train/D3125: ${reason}`);
    expect(s.lastError).not.toContain('\n');
    expect(s).toMatchObject({ requests: 3, errors: 1, linesTaken: 2 });
  });

  it('refuses bad rows (a bad date, an empty emu_no) naming the URL and field, keeps the good ones', async () => {
    const db = t.current.db;
    const f = await serve(ROWS, { G5: 'bad-rows' });
    await add(db, f.url, 'G5');
    const err = await pullSource(db, rr, { clock: clock(), get: fetchGet }).catch(
      (e: unknown) => e,
    );
    expect((err as SourcePullError).partial!.taken).toBe(1);
    expect((err as SourcePullError).partial!.refused).toBe(2);
    const s = await getSource(db, rr);
    expect(s.lastError).toBe(
      `source ${rr}: GET ${f.url}/train/G5: row 2: date: 2026-13-45 is not a date (and 1 more problem(s))`,
    );
    expect(s.linesRefused).toBe(2);
    const rejects = await db.query<{ file: string; line: number; field: string }>(
      `SELECT file, line, field FROM ingest_rejects WHERE file LIKE $1 ORDER BY line`,
      [`source:${rr}/%`],
    );
    expect(rejects.rows).toEqual([
      { file: `source:${rr}/train/G5`, line: 2, field: 'date' },
      { file: `source:${rr}/train/G5`, line: 3, field: 'emu_no' },
    ]);
    expect(await observations(db)).toEqual([`${DAY} G5 CR400AF2001 20260814/G5/CR400AF-2001`]);
    // The next pull that finds nothing wrong clears the error.
    const fixed = await serve();
    await db.query(`UPDATE sources SET base_url = $1 WHERE name = $2`, [fixed.url, rr]);
    const ok = await pullSource(db, rr, { clock: clock(), get: fetchGet });
    expect(ok.duplicate).toBe(1);
    expect((await getSource(db, rr)).lastError).toBeNull();
  });

  it('stops at a request that gets no answer, keeping what came before', async () => {
    const db = t.current.db;
    const f = await serve();
    await add(db, f.url, 'G5,D3125');
    await f.close();
    const err = await pullSource(db, rr, { clock: clock(), get: fetchGet, batchSize: 1 }).catch(
      (e: unknown) => e,
    );
    expect((err as SourcePullError).partial!.requests).toBe(1);
    expect((await getSource(db, rr)).lastError).toMatch(
      new RegExp(`^source ${rr}: GET ${f.url}/train/G5: connection failed`),
    );
  });

  it('takes --trains only as rail.re numbers, and only for a railre source', () => {
    expect(
      checkSourceSettings({ name: 'a', kind: 'railre', url: 'https://x', trains: 'g1, D3125,G1' })
        .trains,
    ).toEqual(['G1', 'D3125']);
    for (const trains of ['G12345', 'K101', 'G1,,G2', 'G1/G2'])
      expect(() =>
        checkSourceSettings({ name: 'a', kind: 'railre', url: 'https://x', trains }),
      ).toThrow(SourceSettingError);
    expect(() =>
      checkSourceSettings({ name: 'a', kind: 'v2', url: 'https://x', trains: 'G1' }),
    ).toThrow('--trains: only a railre source asks for trains');
  });
});
