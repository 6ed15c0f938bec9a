import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * Status bits from input to answer: sightings that say position, fault and spare (NDJSON and
 * CSV), the day build's rule (build-daily-records.ts), and the records, histories and export
 * that show them.
 */
const YMD = '20260812';
const DAY = serviceDayFromYmd(YMD);
const AT = midnightOfServiceDay(DAY) + 9 * 3600;

interface Said {
  train: string;
  emu: string;
  position?: string;
  fault?: boolean;
  spare?: boolean;
}

let seq = 0;
function ndjson(sightings: Said[]): string {
  return sightings
    .map((s) =>
      JSON.stringify({
        observedAt: AT + seq,
        trainCode: s.train,
        emuCode: s.emu,
        source: `src-${seq % 5}`,
        ref: `n-${seq++}`,
        ...(s.position !== undefined ? { position: s.position } : {}),
        ...(s.fault !== undefined ? { fault: s.fault } : {}),
        ...(s.spare !== undefined ? { spare: s.spare } : {}),
      }),
    )
    .join('\n');
}

function csv(sightings: Said[]): string {
  const rows = sightings.map(
    (s) =>
      `${AT + seq},${s.train},${s.emu},src-${seq % 5},c-${seq++},${s.position ?? ''},${s.fault ?? ''},${s.spare ?? ''}`,
  );
  return ['observedAt,trainCode,emuCode,source,ref,position,fault,spare', ...rows].join('\n');
}

const times = (n: number, s: Said): Said[] => Array.from({ length: n }, () => s);

describe('status bits: from the sightings through the records and histories', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-status-'));
    // G1: coupled, both say their place (first in NDJSON, second in CSV).
    // G2: coupled, only one unit says "second": the other is the first.
    // G3: coupled, nobody says: 0x02.
    // G4: coupled, both say "first": contradictory, 0x02.
    // G5: one unit, 3 say first, 1 says single: first (the partner unseen).
    // G6: one unit, a tie (first vs second): no formation bit.
    // G7: one unit replacing a failed one (2 true vs 1 false): 0x08.
    // G8: a hot spare (1 true, nobody against) and unconfirmed (one sighting).
    // G9: one unit, fault 1 true vs 1 false: a tie, not set.
    const json = [
      ...times(2, { train: 'G1', emu: 'CR400AF-2001', position: 'first' }),
      ...times(2, { train: 'G2', emu: 'CR400AF-2003' }),
      ...times(2, { train: 'G2', emu: 'CR400AF-2004', position: 'second' }),
      ...times(2, { train: 'G3', emu: 'CR400AF-2005' }),
      ...times(2, { train: 'G3', emu: 'CR400AF-2006' }),
      ...times(2, { train: 'G4', emu: 'CR400AF-2007', position: 'first' }),
      ...times(2, { train: 'G4', emu: 'CR400AF-2008', position: 'first' }),
      ...times(3, { train: 'G5', emu: 'CR400AF-2009', position: 'first' }),
      { train: 'G5', emu: 'CR400AF-2009', position: 'single' },
      { train: 'G6', emu: 'CR400AF-2010', position: 'first' },
      { train: 'G6', emu: 'CR400AF-2010', position: 'second' },
      ...times(2, { train: 'G7', emu: 'CR400AF-2011', fault: true }),
      { train: 'G7', emu: 'CR400AF-2011', fault: false },
      { train: 'G7', emu: 'CR400AF-2011' },
      { train: 'G8', emu: 'CR400AF-2012', spare: true },
      { train: 'G9', emu: 'CR400AF-2013', fault: true },
      { train: 'G9', emu: 'CR400AF-2013', fault: false },
    ];
    const table = [...times(2, { train: 'G1', emu: 'CR400AF-2002', position: 'second' })];
    await writeFile(path.join(dir, 'said.ndjson'), ndjson(json) + '\n');
    await writeFile(path.join(dir, 'said.csv'), csv(table) + '\n');
    const ingested = await ingestObservations(t.current.db, dir);
    expect(ingested.rejected).toBe(0);
    await buildDailyRecords(t.current.db, DAY);
    await renderDailyExport(t.current.db, DAY);
    app = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '10000' } });
  });
  afterAll(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const expected: Record<string, Record<string, number>> = {
    G1: { 'CR400AF-2001': 0x05, 'CR400AF-2002': 0x07 },
    G2: { 'CR400AF-2003': 0x05, 'CR400AF-2004': 0x07 },
    G3: { 'CR400AF-2005': 0x03, 'CR400AF-2006': 0x03 },
    G4: { 'CR400AF-2007': 0x03, 'CR400AF-2008': 0x03 },
    G5: { 'CR400AF-2009': 0x05 },
    G6: { 'CR400AF-2010': 0x01 },
    G7: { 'CR400AF-2011': 0x09 },
    G8: { 'CR400AF-2012': 0x10 },
    G9: { 'CR400AF-2013': 0x01 },
  };

  it('stores what each sighting said, from NDJSON and CSV alike', async () => {
    const r = await t.current.db.query<{ position: string | null; n: number }>(
      `SELECT position, count(*)::int AS n FROM observations GROUP BY position ORDER BY position`,
    );
    expect(r.rows).toEqual([
      { position: 'first', n: 10 },
      { position: 'second', n: 5 },
      { position: 'single', n: 1 },
      { position: null, n: 13 },
    ]);
    const csvRows = await t.current.db.query<{ position: string; fault: boolean | null }>(
      `SELECT position, fault FROM observations WHERE file LIKE '%said.csv'`,
    );
    expect(csvRows.rows).toEqual([
      { position: 'second', fault: null },
      { position: 'second', fault: null },
    ]);
  });

  it('sets the bits by the written rule in the daily records (records/daily)', async () => {
    const res = await app.inject(`/api/v2/records/daily?date=${YMD}&limit=200`);
    expect(res.statusCode).toBe(200);
    const { items, emuCodeMappings } = res.json().data as {
      items: { emuId: number; trainCode: { prefix: string; number: number }; status: number }[];
      emuCodeMappings: Record<string, string>;
    };
    const got: Record<string, Record<string, number>> = {};
    for (const item of items) {
      const train = `${item.trainCode.prefix}${item.trainCode.number}`;
      (got[train] ??= {})[emuCodeMappings[item.emuId]!] = item.status;
    }
    expect(got).toEqual(expected);
  });

  it('shows the same bits in the train and EMU histories', async () => {
    for (const [train, units] of Object.entries(expected)) {
      const byTrain = (await app.inject(`/api/v2/history/train/${train}`)).json().data;
      const statusByEmu = Object.fromEntries(
        (byTrain.items as { emuId: number; status: number }[]).map((i) => [
          byTrain.emuCodeMappings[i.emuId],
          i.status,
        ]),
      );
      expect(statusByEmu, train).toEqual(units);
      for (const [emu, status] of Object.entries(units)) {
        const byEmu = (await app.inject(`/api/v2/history/emu/${emu}`)).json().data;
        expect(
          byEmu.items.map((i: { status: number }) => i.status),
          emu,
        ).toEqual([status]);
      }
    }
  });

  it("keeps the export's columns those of the live service", async () => {
    const res = await app.inject(`/api/v2/exports/daily/${YMD}?binary=true`);
    expect(res.statusCode).toBe(200);
    const text = res.body.replace(/^\uFEFF/, '');
    expect(text.split('\n')[0]).toBe('trainCode,emuCode,startStation,endStation,startTime,endTime');
  });

  it('refuses a bad status field naming it and the line, and keeps the good lines', async () => {
    const bad = path.join(dir, 'bad');
    await rm(bad, { recursive: true, force: true });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(bad);
    await writeFile(
      path.join(bad, 'bad.ndjson'),
      [
        ndjson([{ train: 'G10', emu: 'CR400AF-2020', position: 'middle' }]),
        ndjson([{ train: 'G10', emu: 'CR400AF-2020', position: 'first' }]),
      ].join('\n') + '\n',
    );
    const result = await ingestObservations(t.current.db, bad);
    expect(result.rejected).toBe(1);
    const reject = await t.current.db.query<{ line: number; field: string; reason: string }>(
      `SELECT line, field, reason FROM ingest_rejects WHERE file LIKE '%bad.ndjson'`,
    );
    expect(reject.rows).toEqual([
      {
        line: 1,
        field: 'position',
        reason: 'position: expected "single", "first" or "second", got "middle"',
      },
    ]);
  });
});
