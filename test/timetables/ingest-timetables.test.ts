import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestTimetablesJob } from '../../jobs/index.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { runInProcess } from '../../src/worker/in-process-runner.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestTimetables } from '../../src/domain/timetables/ingest-timetables.js';
import {
  timetableInForce,
  timetablesInForceOn,
} from '../../src/domain/timetables/timetable-lookup.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
const day = serviceDayFromYmd;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-tt-files-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function coverage(trainCode: string) {
  const r = await t.current.db.query<{
    id: number;
    timetable_id: number;
    service_day_start: number;
    service_day_end_exclusive: number | null;
  }>(
    `SELECT id, timetable_id, service_day_start, service_day_end_exclusive FROM timetable_coverage
      WHERE train_code = $1 ORDER BY service_day_start`,
    [trainCode],
  );
  return r.rows;
}

const g10 = (validFrom: string, arrive = '11:00') =>
  timetable('G10', validFrom, [
    ['北京南', undefined, '08:00'],
    ['济南西', '09:30', '09:32'],
    ['上海虹桥', arrive],
  ]);

describe('ingestTimetables: files and rejects', () => {
  it('reads a pretty-printed .json (one train) and an .ndjson (one per line) in a directory', async () => {
    const sub = path.join(dir, 'mixed');
    await rm(sub, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(sub));
    await writeFile(
      path.join(sub, 'a-G20.json'),
      '\uFEFF' +
        JSON.stringify(
          timetable('G20', '20260701', [
            ['杭州东', undefined, '10:00'],
            ['宁波', '11:00'],
          ]),
          null,
          2,
        ),
    );
    await writeFile(
      path.join(sub, 'b-more.ndjson'),
      [
        JSON.stringify(
          timetable('G21', '20260701', [
            ['宁波', undefined, 43200],
            ['杭州东', 46920],
          ]),
        ),
        '',
        JSON.stringify(
          timetable('G22', '20260701', [
            ['宁波', undefined, '12:00'],
            ['杭州东', '11:00'],
          ]),
        ),
        '{"trainCode": "G23",',
        JSON.stringify(
          timetable('G24', '20260701', [
            ['宁波', undefined, '12:00'],
            ['杭州东', '13:00'],
          ]),
        ),
      ].join('\n'),
    );
    await writeFile(path.join(sub, 'c-broken.json'), '{\n  "trainCode": "G25",\n  "stops": [\n}\n');
    await writeFile(path.join(sub, 'notes.txt'), 'not a timetable');
    const r = await ingestTimetables(t.current.db, sub);
    expect(r.files.map((f) => [f.file, f.read, f.accepted, f.rejected])).toEqual([
      ['a-G20.json', 1, 1, 0],
      ['b-more.ndjson', 4, 2, 2],
      ['c-broken.json', 1, 0, 1],
    ]);
    expect(r).toMatchObject({
      read: 6,
      accepted: 3,
      changed: 3,
      unchanged: 0,
      rejected: 3,
      newContents: 3,
    });
    expect(r.changedFrom).toBe(day('20260701'));
    const rejects = await t.current.db.query<{
      file: string;
      line: number;
      field: string | null;
      reason: string;
    }>(
      'SELECT file, line, field, reason FROM ingest_rejects WHERE batch_id = $1 ORDER BY file, line',
      [r.batchId],
    );
    expect(rejects.rows.map((x) => [x.file, x.line, x.field])).toEqual([
      ['b-more.ndjson', 3, 'stops[1].arrive'],
      ['b-more.ndjson', 4, null],
      ['c-broken.json', expect.any(Number), null],
    ]);
    // The line the parser stopped at when its message says (Node versions differ), else line 1.
    expect([1, 4]).toContain(rejects.rows[2]!.line);
    expect(rejects.rows[0]!.reason).toMatch(/^stops\[1\]\.arrive: 11:00 is before 12:00/);
    expect(rejects.rows[1]!.reason).toMatch(/^not valid JSON/);
    const batch = await t.current.db.query(
      'SELECT kind, files, lines_read, accepted, rejected FROM ingest_batches WHERE id = $1',
      [r.batchId],
    );
    expect(batch.rows[0]).toEqual({
      kind: 'timetables',
      files: 3,
      lines_read: 6,
      accepted: 3,
      rejected: 3,
    });
    // Seconds and HH:MM are one content; the stops are stored in order with their offsets.
    const stops = await t.current.db.query(
      `SELECT s.station_no, s.station_name, s.arrive_offset, s.depart_offset
         FROM timetable_stops s JOIN timetables tt ON tt.id = s.timetable_id
        WHERE tt.train_code = 'G21' ORDER BY s.station_no`,
    );
    expect(stops.rows).toEqual([
      { station_no: 1, station_name: '宁波', arrive_offset: null, depart_offset: 43200 },
      { station_no: 2, station_name: '杭州东', arrive_offset: 46920, depart_offset: null },
    ]);
  });

  it('stores a content once, and re-ingesting an identical timetable changes nothing', async () => {
    const first = await ingestTimetableLines(t.current.db, [g10('20260801')]);
    expect(first).toMatchObject({
      accepted: 1,
      changed: 1,
      newContents: 1,
      changedFrom: day('20260801'),
    });
    const before = await coverage('G10');
    const again = await ingestTimetableLines(t.current.db, [g10('20260801'), g10('20260815')]);
    expect(again).toMatchObject({ accepted: 2, newContents: 0, unchanged: 1, changed: 1 });
    // A later validFrom with the same content is declared, but the coverage is unchanged.
    expect(again.changedFrom).toBeUndefined();
    expect(await coverage('G10')).toEqual(before);
    const n = await t.current.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM timetables WHERE train_code = 'G10'",
    );
    expect(n.rows[0]!.n).toBe(1);
  });

  it('a new version closes the open coverage and opens one; a return reuses the old timetableId', async () => {
    const [v1] = await coverage('G10');
    await ingestTimetableLines(t.current.db, [g10('20260901', '11:05')]);
    const two = await coverage('G10');
    expect(two).toHaveLength(2);
    expect(two[0]).toEqual({ ...v1, service_day_end_exclusive: day('20260901') });
    expect(two[1]).toMatchObject({
      service_day_start: day('20260901'),
      service_day_end_exclusive: null,
    });
    expect(two[1]!.timetable_id).not.toBe(v1!.timetable_id);

    const back = await ingestTimetableLines(t.current.db, [g10('20261001')]);
    expect(back).toMatchObject({ newContents: 0, changed: 1, changedFrom: day('20261001') });
    const three = await coverage('G10');
    expect(
      three.map((c) => [c.timetable_id, c.service_day_start, c.service_day_end_exclusive]),
    ).toEqual([
      [v1!.timetable_id, day('20260801'), day('20260901')],
      [two[1]!.timetable_id, day('20260901'), day('20261001')],
      [v1!.timetable_id, day('20261001'), null],
    ]);
    expect(three[0]!.id).toBe(v1!.id);
    expect(three[1]!.id).toBe(two[1]!.id);
  });

  it('a correction valid before the open coverage fills the days up to the next version', async () => {
    const before = await coverage('G10');
    const r = await ingestTimetableLines(t.current.db, [g10('20260910', '10:58')]);
    expect(r.changedFrom).toBe(day('20260910'));
    const after = await coverage('G10');
    expect(after.map((c) => [c.service_day_start, c.service_day_end_exclusive])).toEqual([
      [day('20260801'), day('20260901')],
      [day('20260901'), day('20260910')],
      [day('20260910'), day('20261001')],
      [day('20261001'), null],
    ]);
    expect(after[3]).toEqual(before[2]);
    expect((await timetableInForce(t.current.db, 'G10', day('20260920')))!.timetableId).toBe(
      after[2]!.timetable_id,
    );
  });

  it('gives the same history whatever order the versions arrive in', async () => {
    const versions = [
      timetable('G30', '20260801', [
        ['A站', undefined, '08:00'],
        ['B站', '09:00'],
      ]),
      timetable('G30', '20260901', [
        ['A站', undefined, '08:10'],
        ['B站', '09:10'],
      ]),
      timetable('G30', '20261001', [
        ['A站', undefined, '08:00'],
        ['B站', '09:00'],
      ]),
      timetable('G30', '20261015', [
        ['A站', undefined, '08:00'],
        ['B站', '09:00'],
      ]),
    ];
    const history = async () =>
      (await coverage('G30')).map((c) => [
        c.timetable_id,
        c.service_day_start,
        c.service_day_end_exclusive,
      ]);
    // 10-01 and 10-15 repeat the content in force when they arrive; they count once 09-01 is known.
    await ingestTimetableLines(t.current.db, [versions[0]!]);
    await ingestTimetableLines(t.current.db, [versions[3]!, versions[2]!]);
    await ingestTimetableLines(t.current.db, [versions[1]!]);
    const outOfOrder = await history();
    const ids = await t.current.db.query<{ id: number; start_offset: number }>(
      "SELECT id, start_offset FROM timetables WHERE train_code = 'G30' ORDER BY start_offset",
    );
    const [a, b] = ids.rows.map((x) => x.id);
    expect(outOfOrder).toEqual([
      [a, day('20260801'), day('20260901')],
      [b, day('20260901'), day('20261001')],
      [a, day('20261001'), null],
    ]);
  });

  it('covers every number of a paired run, and looks numbers up one by one or for a whole day', async () => {
    await ingestTimetableLines(t.current.db, [
      {
        ...timetable('G4340/37', '20260801', [
          ['汉口', undefined, '09:15'],
          ['襄阳东', '11:02', '11:05'],
          ['宜昌东', '12:40'],
        ]),
        allCodes: ['G4340', 'G4337'],
      },
    ]);
    const paired = await timetableInForce(t.current.db, 'g4337', day('20260805'));
    expect(paired).toMatchObject({
      trainCode: 'G4337',
      timetableTrainCode: 'G4340',
      allCodes: ['G4340', 'G4337'],
      startStation: '汉口',
      endStation: '宜昌东',
      startOffset: 9 * 3600 + 15 * 60,
      endOffset: 12 * 3600 + 40 * 60,
      serviceDayStart: day('20260801'),
      serviceDayEndExclusive: null,
    });
    expect((await timetableInForce(t.current.db, 'G4340', day('20260805')))!.timetableId).toBe(
      paired!.timetableId,
    );
    expect(await timetableInForce(t.current.db, 'G4337', day('20260731'))).toBeUndefined();
    expect(await timetableInForce(t.current.db, 'G9999', day('20260805'))).toBeUndefined();

    const all = await timetablesInForceOn(t.current.db, day('20260915'));
    expect(all.get('G10')!.endOffset).toBe(10 * 3600 + 58 * 60);
    expect(all.get('G4337')!.timetableId).toBe(paired!.timetableId);
    expect(all.has('G30')).toBe(true);
    const some = await timetablesInForceOn(t.current.db, day('20260915'), ['g10', 'G4340']);
    expect([...some.keys()].sort()).toEqual(['G10', 'G4340']);
  });

  it('runs as a job, recorded in job_runs', async () => {
    const file = path.join(dir, 'job.ndjson');
    await writeFile(file, JSON.stringify(g10('20270101', '10:59')) + '\n');
    const ctx = { db: t.current.db, config: loadConfig({}), logger: createLogger('silent') };
    const r = await runInProcess(ctx, ingestTimetablesJob, { path: file });
    expect(r).toMatchObject({ files: 1, accepted: 1, changed: 1, changedFrom: day('20270101') });
    const runs = await t.current.db.query<{ status: string; via: string }>(
      "SELECT status, via FROM job_runs WHERE job = 'ingest-timetables'",
    );
    expect(runs.rows).toEqual([{ status: 'completed', via: 'in-process' }]);
  });
});
