import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullSource, SourcePullError } from '../../src/domain/sources/pull-source.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import { addSource, getSource, readDayCursor } from '../../src/domain/sources/source-store.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { fastClock } from './upstream.js';

const mirror = useTestDatabase();
const DAY = serviceDayFromYmd('20260810');
const START = Date.UTC(2026, 7, 12);

const G = (number: number, prefix = 'G') => ({ prefix, number });
/** The day's two pages: good records and refused ones on each. */
const PAGES = [
  {
    cursor: '',
    nextCursor: `${DAY}:1005`,
    items: [
      { id: 1001, serviceDay: DAY, emuId: 1, trainCode: G(1001), timetableId: 1, status: 1 },
      { id: 1002, serviceDay: DAY, emuId: 9, trainCode: G(1002), status: 1 },
      { id: 1003, serviceDay: DAY, emuId: 2, trainCode: G(1003, 'Q'), status: 1 },
      { id: 1004, serviceDay: DAY, emuId: 2, trainCode: G(1004), status: 0x04 },
      { id: 1005, serviceDay: DAY, emuId: 1, trainCode: G(1005), status: 0x08 },
    ],
  },
  {
    cursor: `${DAY}:1005`,
    nextCursor: '',
    items: [
      { id: 1006, serviceDay: DAY + 1, emuId: 1, trainCode: G(1006), status: 1 },
      { id: 1007, serviceDay: DAY, emuId: 3, trainCode: G(1007), status: 1 },
      { id: 1008, serviceDay: DAY, emuId: 2, trainCode: G(1008), status: 1 },
    ],
  },
];
const EMUS = { 1: 'CR400AF-2001', 2: 'CR400AF-2002', 3: 'not a unit' };

let server: http.Server;
let url = '';
/** What the next request of the second page gets: the page, or a 500. */
let secondPage: 'page' | '500' = 'page';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor') ?? '';
    const page = PAGES.find((p) => p.cursor === cursor)!;
    if (page !== PAGES[0] && secondPage === '500') return void res.writeHead(500).end('down');
    const data = {
      serviceDay: DAY,
      cursor,
      limit: 200,
      nextCursor: page.nextCursor,
      items: page.items,
      emuCodeMappings: EMUS,
      timetableMappings: { 1: { startOffset: 28_800 } },
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, data }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function stored(source: string) {
  const db = mirror.current.db;
  const obs = await db.query<{ ref: string; position: string | null; fault: boolean | null }>(
    'SELECT ref, position, fault FROM observations WHERE source = $1 ORDER BY ref',
    [source],
  );
  const rejects = await db.query<{ line: number; field: string; reason: string; raw: string }>(
    `SELECT line, field, reason, raw FROM ingest_rejects WHERE file = $1 ORDER BY line`,
    [`source:${source}/20260810`],
  );
  return { obs: obs.rows, rejects: rejects.rows };
}

describe('a v2 pull of records some of which are refused', () => {
  it('stores the good ones, keeps the refused ones with their reasons, and resumes after a cut', async () => {
    const db = mirror.current.db;
    await addSource(db, checkSourceSettings({ name: 'mixed', kind: 'v2', url }));
    secondPage = '500';
    const cut = await pullSource(db, 'mixed', { from: DAY, to: DAY, clock: fastClock(START) })
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(SourcePullError);
    const source = await getSource(db, 'mixed');
    expect(await readDayCursor(db, source.id, DAY)).toMatchObject({
      nextCursor: `${DAY}:1005`,
      completed: false,
      pages: 1,
      linesTaken: 3,
      linesRefused: 2,
    });
    expect((await stored('mixed')).obs.map((o) => o.ref)).toEqual(['1001', '1004', '1005']);

    secondPage = 'page';
    const r = await pullSource(db, 'mixed', { from: DAY, to: DAY, clock: fastClock(START) });
    expect(r.days[0]).toMatchObject({ resumedAt: `${DAY}:1005`, taken: 1, refused: 2 });
    const after = await stored('mixed');
    expect(after.obs).toEqual([
      { ref: '1001', position: null, fault: null },
      { ref: '1004', position: 'first', fault: null },
      { ref: '1005', position: null, fault: true },
      { ref: '1008', position: null, fault: null },
    ]);
    expect(after.rejects.map(({ line, field, reason }) => ({ line, field, reason }))).toEqual([
      { line: 1002, field: 'emuCode', reason: 'emuCode: no emuCodeMappings entry for emuId 9' },
      { line: 1003, field: 'trainCode', reason: expect.stringMatching(/^trainCode: Q is not/) },
      { line: 1006, field: 'serviceDay', reason: `serviceDay: ${DAY + 1}, not the page's ${DAY}` },
      { line: 1007, field: 'emuCode', reason: expect.stringMatching(/^emuCode: /) },
    ]);
    expect(JSON.parse(after.rejects[0]!.raw)).toMatchObject({ id: 1002, emuId: 9 });

    // A pull of the day again (from its first page: no ETag) adds nothing, refusals included.
    const again = await pullSource(db, 'mixed', { from: DAY, to: DAY, clock: fastClock(START) });
    expect(again).toMatchObject({ taken: 0, duplicate: 4, refused: 4 });
    expect(await stored('mixed')).toEqual(after);
    expect(await getSource(db, 'mixed')).toMatchObject({ linesTaken: 4, requests: 5, errors: 1 });
  });
});
