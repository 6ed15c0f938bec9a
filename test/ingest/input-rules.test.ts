import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOfficialCirculations } from '../../src/domain/circulation/import-official.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import {
  ingestObservations,
  type IngestOptions,
} from '../../src/domain/ingest/ingest-observations.js';
import { parseNdjsonBlock } from '../../src/domain/ingest/ndjson-block-parser.js';
import { readEmuFormPolicy } from '../../src/domain/emus/emu-forms.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * Input that cannot invent units or trains: an EMU code of no known model
 * form and not in the fleet, and a train number of no prefix in use, are rejected with the field,
 * the line and why, on the scanner's path and the general one alike; DJ runs import.
 */
const t = useTestDatabase();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-input-rules-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const at = '2026-08-14T08:30:00+08:00';
const line = (trainCode: string, emuCode: string, ref: string) =>
  JSON.stringify({ observedAt: at, trainCode, emuCode, source: 'report', ref });

const LINES = [
  line('G1', 'CR400AF-2001', 'ok-1'),
  line('G2', 'banana', 'bad-emu'),
  line('XYZ1', 'CR400AF-2001', 'bad-train-1'),
  line('Q99', 'CR400AF-2001', 'bad-train-2'),
  line('DJ8858', 'CR400BF-A-5156', 'dj-1'),
  line('DJ5801/4', 'CR400BFA5156', 'dj-2'),
  line('X101', 'CRH380A-2641', 'parcel'),
  line('X300', 'CRH380A-2641', 'bad-parcel'),
  line('G3', 'CR400AF-Z-0216-02-03F', 'qr'),
  line('G4', 'CRH9Z-1234', 'bad-model'),
  line('G5', 'cr400af2002', 'no-hyphen'),
];

async function ingestLines(name: string, options: IngestOptions) {
  const file = path.join(dir, name);
  await writeFile(file, LINES.join('\n') + '\n');
  const r = await ingestObservations(t.current.db, file, options);
  const rejects = await t.current.db.query<{ line: number; field: string; reason: string }>(
    'SELECT line, field, reason FROM ingest_rejects WHERE batch_id = $1 ORDER BY line',
    [r.batchId],
  );
  return { result: r, rejects: rejects.rows };
}

const EXPECTED_REJECTS = [
  {
    line: 2,
    field: 'emuCode',
    reason: expect.stringMatching(
      /^emuCode: "banana": not the form of a known EMU model \(CRH1A\.\.CRH6F, .*\) nor a unit of the fleet$/,
    ),
  },
  {
    line: 3,
    field: 'trainCode',
    reason: expect.stringMatching(
      /^trainCode: XYZ is not a train-number prefix in use \(G, D, C, S, DJ, Z, T, K, Y, L, X or none\); expected a train number/,
    ),
  },
  {
    line: 4,
    field: 'trainCode',
    reason: expect.stringMatching(/^trainCode: Q is not a train-number prefix in use/),
  },
  {
    line: 8,
    field: 'trainCode',
    reason: expect.stringMatching(/^trainCode: X numbers run from X1 to X299; expected/),
  },
  {
    line: 10,
    field: 'emuCode',
    reason: expect.stringMatching(/^emuCode: "CRH9Z-1234": model CRH9Z is not a known EMU model/),
  },
];

describe('ingestion refuses invented units and trains', () => {
  it('rejects banana, XYZ1, Q99, X300 and CRH9Z with field, line and why; accepts DJ runs and every known form', async () => {
    // The general path (each line JSON.parse'd and validated on this thread)...
    const general = await ingestLines('general.ndjson', { parseThreads: 0 });
    expect(general.result).toMatchObject({ read: 11, accepted: 6, rejected: 5 });
    expect(general.rejects).toEqual(EXPECTED_REJECTS);
    // ...and the byte scanner in a parse thread give the same rejects (and find the lines
    // already stored).
    const scanned = await ingestLines('scanned.ndjson', { parseThreads: 1, parallelMinBytes: 0 });
    expect(scanned.result).toMatchObject({ read: 11, accepted: 0, duplicate: 6, rejected: 5 });
    expect(scanned.rejects).toEqual(EXPECTED_REJECTS);
    // No unit BANANA and no train XYZ1 were made up.
    const units = await t.current.db.query<{ code: string }>('SELECT code FROM emus ORDER BY code');
    expect(units.rows.map((u) => u.code)).toEqual([
      'CR400AF-2001',
      'CR400AF-2002',
      'CR400AF-Z-0216',
      'CR400BF-A-5156',
      'CRH380A-2641',
    ]);
    // The DJ runs are sightings like any other: DJ5801/4 is one run of two numbers.
    const dj = await t.current.db.query<{ train_codes: string[] }>(
      `SELECT train_codes FROM observations WHERE train_code LIKE 'DJ%' ORDER BY id`,
    );
    expect(dj.rows.map((r) => r.train_codes)).toEqual([['DJ8858'], ['DJ5801', 'DJ5804']]);
    const day = serviceDayFromYmd('20260814');
    await buildDailyRecords(t.current.db, day);
    const records = await t.current.db.query<{ train_code: string }>(
      `SELECT train_code FROM daily_records WHERE service_day = $1 ORDER BY id`,
      [day],
    );
    // New ids in train order: D/G before DJ (prefix, then number), X last.
    expect(records.rows.map((r) => r.train_code)).toEqual(
      ['G1', 'G3', 'G5', 'DJ5801', 'DJ5804', 'DJ8858', 'X101'].sort((a, b) => order(a) - order(b)),
    );
  });

  it('ALLOW_UNKNOWN_EMU_FORMS accepts a code of no known form (it registers a unit)', async () => {
    const file = path.join(dir, 'allowed.ndjson');
    await writeFile(file, line('G2', 'banana', 'allowed-1') + '\n');
    const r = await ingestObservations(t.current.db, file, { allowUnknownEmuForms: true });
    expect(r).toMatchObject({ accepted: 1, rejected: 0 });
    const unit = await t.current.db.query(`SELECT 1 FROM emus WHERE code = 'BANANA'`);
    expect(unit.rows).toHaveLength(1);
  });

  it('accepts a code of no known form when the fleet names the unit, on both paths', async () => {
    const fleet = path.join(dir, 'fleet.csv');
    await writeFile(
      fleet,
      'emu_code,model,alias\nTEST-0001,test train,TT0001\nCR400AF-2003,CR400AF,\n',
    );
    await importFleet(t.current.db, fleet);
    const policy = await readEmuFormPolicy(t.current.db, false);
    expect([...policy.fleetCodes].sort()).toEqual(['TEST-0001', 'TT0001']);
    const text =
      [line('G8', 'test-0001', 'fleet-1'), line('G8', 'TT0001', 'fleet-2')].join('\n') + '\n';
    for (const [name, options] of [
      ['fleet-general.ndjson', { parseThreads: 0 }],
      ['fleet-scanned.ndjson', { parseThreads: 1, parallelMinBytes: 0 }],
    ] as const) {
      const file = path.join(dir, name);
      await writeFile(file, text);
      const r = await ingestObservations(t.current.db, file, options);
      expect(r.rejected).toBe(0);
    }
    // In-process, the scanner accepts the line itself under the policy, and leaves it otherwise.
    const bytes = new TextEncoder().encode(line('G8', 'TEST-0001', 'fleet-3') + '\n');
    const block = { bytes, firstLine: 1, batchId: 1, file: 'x' };
    expect(parseNdjsonBlock({ ...block, bytes: bytes.slice(), emuForms: policy }).rejects).toEqual(
      [],
    );
    expect(parseNdjsonBlock({ ...block, bytes: bytes.slice() }).rejects).toMatchObject([
      { line: 1, field: 'emuCode' },
    ]);
  });
});

describe('codes in full-width forms (Unicode NFKC) are the codes they read as', () => {
  // The same sightings written in ASCII and as community tables and phone keyboards write them:
  // full-width letters, digits, slash and hyphen, and dash look-alikes. No ref, so each is its
  // content, and a full-width line is a duplicate of its ASCII line exactly when it names the
  // same train numbers and unit.
  const sighting = (trainCode: string, emuCode: string) =>
    JSON.stringify({ observedAt: at, trainCode, emuCode, source: 'station-board' });
  const PAIRS: [[string, string], [string, string]][] = [
    [
      ['D4595/8', 'CR400AF-2101'],
      ['Ｄ4595/8', 'ＣＲ４００ＡＦ－２１０１'],
    ],
    [
      ['G4340/37', 'CR400BFA5166'],
      ['Ｇ４３４０／３７', 'ＣＲ４００ＢＦＡ５１６６'],
    ],
    [
      ['DJ8858', 'CRH380A-2651'],
      ['ｄｊ８８５８', 'CRH380A\u22122651'],
    ],
    [
      ['G61', 'CR400AF-2101'],
      ['G６１', 'CR400AF\u20142101-02-03F'],
    ],
  ];

  it('on the general path, the byte scanner (which leaves a non-ASCII line to it) and CSV alike', async () => {
    const { db } = t.current;
    const ascii = path.join(dir, 'ascii.ndjson');
    await writeFile(ascii, PAIRS.map(([[tc, ec]]) => sighting(tc, ec)).join('\n') + '\n');
    expect(await ingestObservations(db, ascii, { parseThreads: 0 })).toMatchObject({
      accepted: 4,
      rejected: 0,
    });
    const wide = PAIRS.map(([, [tc, ec]]) => sighting(tc, ec)).join('\n') + '\n';
    for (const [name, options] of [
      ['wide-general.ndjson', { parseThreads: 0 }],
      ['wide-scanned.ndjson', { parseThreads: 1, parallelMinBytes: 0 }],
    ] as const) {
      const file = path.join(dir, name);
      await writeFile(file, wide);
      expect(await ingestObservations(db, file, options), name).toMatchObject({
        read: 4,
        accepted: 0,
        duplicate: 4,
        rejected: 0,
      });
    }
    const csv = path.join(dir, 'wide.csv');
    await writeFile(
      csv,
      'observedAt,trainCode,emuCode,source\n' +
        PAIRS.map(([, [tc, ec]]) => `${at},${tc},${ec},station-board`).join('\n') +
        '\n',
    );
    expect(await ingestObservations(db, csv)).toMatchObject({
      accepted: 0,
      duplicate: 4,
      rejected: 0,
    });
    // No unit and no alias was made of a full-width form (a dash look-alike is kept in the
    // alias as written, as before).
    const units = await db.query<{ code: string }>(
      `SELECT code FROM emus UNION ALL SELECT alias FROM emu_aliases`,
    );
    expect(units.rows.filter((u) => /[\uFF00-\uFFEF]/.test(u.code))).toEqual([]);
    const observed = await db.query<{ emu_code: string; train_codes: string[] }>(
      `SELECT DISTINCT e.code AS emu_code, o.train_codes
         FROM observations o JOIN emus e ON e.id = o.emu_id
        WHERE o.source = 'station-board' ORDER BY 1, 2`,
    );
    expect(observed.rows).toEqual([
      { emu_code: 'CR400AF-2101', train_codes: ['D4595', 'D4598'] },
      { emu_code: 'CR400AF-2101', train_codes: ['G61'] },
      { emu_code: 'CR400BF-A-5166', train_codes: ['G4340', 'G4337'] },
      { emu_code: 'CRH380A-2651', train_codes: ['DJ8858'] },
    ]);
  });
});

/** Train order as the build's key gives it: prefix (none first, D before DJ), then number. */
function order(code: string): number {
  const m = /^([A-Z]*)(\d+)$/.exec(code)!;
  const rank = ['', 'D', 'DJ', 'G', 'X'].indexOf(m[1]!);
  return rank * 1e6 + Number(m[2]);
}

describe('official circulation tables with DJ runs', () => {
  it('imports DJ8858 and DJ5801/4 as an EMU circulation (not skipped, not rejected)', async () => {
    const file = path.join(dir, 'official.json');
    await writeFile(
      file,
      JSON.stringify([
        {
          running_start: '20260801',
          running_end: '20991231',
          emu_note: 'CR400AF',
          administrator: '北京局 北京动车段',
          train_no_total: 'G1#DJ5801/4#DJ8858#G2',
        },
      ]),
    );
    const r = await importOfficialCirculations(t.current.db, file);
    expect(r).toMatchObject({ imported: 1, rejected: 0, skipped: [] });
    const trains = await t.current.db.query<{ train_codes: string[] }>(
      'SELECT train_codes FROM official_circulation_trains ORDER BY position',
    );
    expect(trains.rows.map((x) => x.train_codes)).toEqual([
      ['G1'],
      ['DJ5801', 'DJ5804'],
      ['DJ8858'],
      ['G2'],
    ]);
  });

  it('reads a table written in full-width forms as the same table, skips a full-width K train and refuses a trailing separator with its reason', async () => {
    const table = (train_no_total: string) => ({
      running_start: '20260801',
      running_end: '20991231',
      emu_note: 'CR400AF',
      administrator: '上海局 上海动车段',
      train_no_total,
    });
    const ascii = path.join(dir, 'official-ascii.json');
    await writeFile(ascii, JSON.stringify([table('G8761#D4595/8#0D6911#G4340/37')]));
    expect(await importOfficialCirculations(t.current.db, ascii)).toMatchObject({
      imported: 1,
      rejected: 0,
    });
    const wide = path.join(dir, 'official-wide.json');
    await writeFile(
      wide,
      JSON.stringify([
        // The same table: full-width letters, digits, slash, separator and deadhead mark.
        table('Ｇ８７６１＃Ｄ4595/8＃０Ｄ６９１１＃Ｇ４３４０／３７'),
        table('G8761#Ｋ１２３#G8762'),
        table('G8761#G8762/3/'),
      ]),
    );
    const r = await importOfficialCirculations(t.current.db, wide);
    expect(r).toMatchObject({
      read: 3,
      imported: 0,
      duplicate: 1,
      rejected: 1,
      skipped: [
        {
          reason: expect.stringMatching(/^not an EMU circulation: locomotive-hauled train K123 /),
        },
      ],
      rejects: [
        {
          field: 'train_no_total',
          reason: expect.stringMatching(
            /^train_no_total: train 2 "G8762\/3\/": a '\/' with no number after it; expected a train number/,
          ),
        },
      ],
    });
  });
});
