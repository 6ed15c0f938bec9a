import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { makeApp } from './helpers/api-harness.js';

/** A seeded generator: the same 1,000 query strings on every run (seed printed on failure). */
function generator(seed: number) {
  let s = seed >>> 0;
  const int = (n: number) => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s % n;
  };
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const digits = (n: number) => Array.from({ length: n }, () => String(int(10))).join('');
  const values: (() => string)[] = [
    () => '20260810',
    () => '20260811',
    () => digits(8),
    () => digits(int(14)),
    () => `-${digits(1 + int(4))}`,
    () => `${digits(1 + int(3))}.${digits(1 + int(3))}`,
    () => pick(['1e3', '0x10', ' 5', '5 ', '+5', '020', '00000000', '99999999999999999999999']),
    () => `${digits(1 + int(6))}:${digits(int(17))}`,
    () => pick(['20675:1', '20675:47', '20676:3', ':', '1:', ':1', '20675:-1', '20675:1:2']),
    () => pick(['true', 'false', 'TRUE', '1', '0', 'null', 'undefined', '[]', '{}', 'NaN']),
    () =>
      pick(['%00', '%FF', '%zz', '%', '%%', '+', '%2B', '%26', '%3D', '%E6%97%A5', '%F0%9F%9A%84']),
    () =>
      encodeURIComponent(
        pick(['日期', '🚄', 'é', '\u0000', '\u202e', '<script>', "'; DROP TABLE x;--"]),
      ),
    () => 'x'.repeat(int(3000)),
    () => '',
  ];
  const keys = [
    'date',
    'limit',
    'cursor',
    'start',
    'end',
    'binary',
    'year',
    'month',
    'date[]',
    'limit[0]',
    'cursor[a]',
    '__proto__',
    'constructor',
    'toString',
    '',
    'x',
    '%zz',
    'DATE',
  ];
  const queryString = () => {
    const parts: string[] = [];
    for (let n = int(6); n > 0; n--) {
      const shape = int(10);
      if (shape === 0) parts.push(pick(keys));
      else if (shape === 1) parts.push(`=${pick(values)()}`);
      else parts.push(`${pick(keys)}=${pick(values)()}`);
    }
    return parts.join(pick(['&', '&', '&', '&&', ';']));
  };
  return {
    queryString,
    segment: () => pick(values)(),
    /** Half the time `valid` (a path that gets past validation), else a random segment. */
    maybe: (valid: string) => (int(2) === 0 ? valid : pick(values)() || valid),
  };
}

describe('1,000 random query strings against every route', () => {
  const t = useTestDatabase();
  let app: ApiApp;

  beforeAll(async () => {
    await seedDay(t.current.db, '20260810', busyDay(2000));
    await ingestTimetableLines(t.current.db, [
      timetable('G1001', '20260101', [
        ['上海虹桥', undefined, '08:00'],
        ['北京南', '12:30', undefined],
      ]),
    ]);
    app = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '1000000000' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const routes: [string, (g: ReturnType<typeof generator>) => string][] = [
    ['/api/v2/records/daily', () => '/api/v2/records/daily'],
    ['/api/v2/exports/daily', () => '/api/v2/exports/daily'],
    ['/api/v2/exports/daily/{date}', (g) => `/api/v2/exports/daily/${g.segment() || '20260810'}`],
    [
      '/api/v2/timetable/train/{trainCode}/current',
      (g) => `/api/v2/timetable/train/${g.maybe('G1001')}/current`,
    ],
    [
      '/api/v2/timetable/train/{trainCode}/history',
      (g) => `/api/v2/timetable/train/${g.maybe('g1001')}/history`,
    ],
    [
      '/api/v2/timetable/station/{stationName}',
      (g) => `/api/v2/timetable/station/${g.maybe(encodeURIComponent('上海虹桥'))}`,
    ],
    ['/api/v2/history/train/{trainCode}', (g) => `/api/v2/history/train/${g.maybe('G1001')}`],
    ['/api/v2/history/emu/{emuCode}', (g) => `/api/v2/history/emu/${g.maybe('CR400AF-2000')}`],
    [
      '/api/v2/allocation/emu/{emuCode}',
      (g) => `/api/v2/allocation/emu/${g.maybe('CR400AF-2000')}`,
    ],
    [
      '/api/v2/timetable/train/{trainCode}/circulation/image',
      (g) => `/api/v2/timetable/train/${g.maybe('G1001')}/circulation/image`,
    ],
    [
      '/api/v2/circulation-images/{documentId}.{format}',
      (g) => `/api/v2/circulation-images/${g.maybe(`${'ab'.repeat(32)}.png`)}`,
    ],
    ['/api/v2/prediction/train/{trainCode}', (g) => `/api/v2/prediction/train/${g.maybe('G1001')}`],
    ['/api/v2/openapi.json', () => '/api/v2/openapi.json'],
    ['/api/v2/<unknown>', (g) => `/api/v2/${g.segment()}`],
    ['/healthz', () => '/healthz'],
    ['/readyz', () => '/readyz'],
  ];

  // Seeded: the same requests on every run. 400 a route reach past validation and into it on
  // every route (the counts below), in 40% of the time of the 1,000 this once asked.
  const REQUESTS_PER_ROUTE = 400;
  for (const [name, pathOf] of routes) {
    it(`gives no 5xx on ${name}`, async () => {
      const seed = 0x5eed + name.length * 7919;
      const g = generator(seed);
      const statuses = new Map<number, number>();
      for (let i = 0; i < REQUESTS_PER_ROUTE; i++) {
        const url = `${pathOf(g)}?${g.queryString()}`;
        const res = await app.inject({ method: 'GET', url });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expect(res.statusCode, `seed ${seed} #${i}: GET ${url.slice(0, 300)}`).toBeLessThan(500);
        if (name.startsWith('/api/v2/') && name !== '/api/v2/openapi.json') {
          expect(res.headers['x-api-remain'], url).toBeDefined();
          expect(res.headers['x-api-cost'], url).toBeDefined();
          if (String(res.headers['content-type']).startsWith('application/json')) {
            const body = res.json();
            expect(typeof body.meta.remain, url).toBe('number');
            expect('data' in body || 'error' in body, url).toBe(true);
          }
        }
      }
      // Some of each: the generator reaches past validation as well as into it.
      if (name === '/api/v2/records/daily' || name === '/api/v2/history/train/{trainCode}') {
        expect(statuses.get(200) ?? 0).toBeGreaterThan(5);
        expect(statuses.get(400) ?? 0).toBeGreaterThan(100);
      }
    });
  }
});
