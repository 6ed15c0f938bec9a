import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/shared/app/package-root.js';
import {
  ingestObservations,
  type IngestOptions,
  type IngestResult,
} from '../../src/domain/ingest/ingest-observations.js';
import { shanghai } from '../helpers/observations.js';
import { createTestDatabase, dropTestDatabase, type TestDatabase } from '../helpers/test-db.js';

/**
 * The parallel parser (NDJSON blocks parsed in worker threads, written optimistically) against
 * the line reader on this thread: the same rows, rejects and duplicates, on every fixture, on
 * files made to hit its edges, and on 100k generated lines.
 */
const LINE_READER: IngestOptions = { parseThreads: 0 };
const PARALLEL: IngestOptions = { parseThreads: 2, parallelMinBytes: 0 };

let lineDb: TestDatabase;
let parallelDb: TestDatabase;
let dir: string;

beforeAll(async () => {
  [lineDb, parallelDb] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-parallel-'));
});
afterAll(async () => {
  await Promise.all([
    lineDb && dropTestDatabase(lineDb),
    parallelDb && dropTestDatabase(parallelDb),
  ]);
  await rm(dir, { recursive: true, force: true });
});

/** Everything an ingestion leaves, without the ids and batch numbers that differ by run. */
async function stored(t: TestDatabase) {
  const observations = await t.db.query(
    `SELECT file, line, observed_at, service_day, service_date_given, train_code, train_codes,
            e.code AS emu, emu_code, source, ref, encode(dedup_key, 'hex') AS key
       FROM observations o JOIN emus e ON e.id = o.emu_id ORDER BY dedup_key`,
  );
  const rejects = await t.db.query(
    'SELECT file, line, field, reason, raw FROM ingest_rejects ORDER BY file, line, raw',
  );
  const emus = await t.db.query('SELECT code, registered_by FROM emus ORDER BY code');
  return { observations: observations.rows, rejects: rejects.rows, emus: emus.rows };
}

const totals = (r: IngestResult) => ({
  read: r.read,
  accepted: r.accepted,
  duplicate: r.duplicate,
  rejected: r.rejected,
  files: r.files,
  serviceDays: r.serviceDays,
});

async function ingestBoth(target: string, chunkSize?: number) {
  const a = await ingestObservations(lineDb.db, target, { ...LINE_READER, chunkSize });
  const b = await ingestObservations(parallelDb.db, target, { ...PARALLEL, chunkSize });
  return [a, b] as const;
}

describe('parallel NDJSON parser: results identical to the line reader', () => {
  it('on every fixture, ingested twice (the second time all duplicates)', async () => {
    const fixtures = path.join(dir, 'fixtures');
    await mkdir(fixtures);
    for (const f of ['2026-08-10_13.ndjson', '2026-08-14_16.ndjson', 'station-board.csv'])
      await copyFile(
        path.join(packageRoot(), 'fixtures', 'observations', f),
        path.join(fixtures, f),
      );
    for (const chunkSize of [7, 20_000]) {
      const [a, b] = await ingestBoth(fixtures, chunkSize);
      expect(totals(b)).toEqual(totals(a));
    }
    expect(await stored(parallelDb)).toEqual(await stored(lineDb));
  }, 120_000);

  it('on lines that hit its edges: CRLF, lone CR, BOM, blanks, bad JSON, bad UTF-8, no final newline, duplicates across blocks', async () => {
    const edges = path.join(dir, 'edges');
    await mkdir(edges);
    const sighting = (i: number, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        observedAt: shanghai('20260902', '09:00') + i,
        trainCode: `G${200 + (i % 9)}`,
        emuCode: `CR400BF-${String(5000 + (i % 5)).padStart(4, '0')}`,
        source: 'report',
        ...extra,
      });
    const text =
      '\uFEFF' +
      sighting(1) +
      '\r\n' +
      sighting(2) +
      '\r' + // a lone CR ends a line too
      sighting(3) +
      '\n\n   \n' +
      '{"observedAt": oops}\n' +
      sighting(4, { trainCode: 'nope' }) +
      '\r\n' +
      sighting(1) + // the same content as line 1: a duplicate in another block
      '\n' +
      sighting(5, { serviceDate: '20260901' }) +
      '\n' +
      sighting(6, { emuCode: '' }) +
      '\n' +
      sighting(7); // no final newline
    await writeFile(path.join(edges, 'edges.ndjson'), text);
    await writeFile(
      path.join(edges, 'latin1.ndjson'),
      Buffer.concat([
        Buffer.from(sighting(8) + '\n'),
        Buffer.from([0x7b, 0x22, 0xe9, 0xff, 0x22, 0x7d, 0x0a]),
        Buffer.from(sighting(9, { source: 'caf\u00e9' }) + '\n'),
      ]),
    );
    for (const chunkSize of [1, 3, 1000]) {
      const [a, b] = await ingestBoth(edges, chunkSize);
      expect(totals(b)).toEqual(totals(a));
    }
    const [a] = await ingestBoth(edges);
    expect(a.rejected).toBe(4);
    expect(await stored(parallelDb)).toEqual(await stored(lineDb));
  }, 120_000);

  it('on several files in one stream: CSV between NDJSON files, an unreadable one, an empty one, repeats across files', async () => {
    const several = path.join(dir, 'several');
    await mkdir(several);
    const sighting = (i: number, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        observedAt: shanghai('20260905', '07:00') + i,
        trainCode: `D${300 + (i % 7)}`,
        emuCode: `CRH380A-${String(2700 + (i % 13)).padStart(4, '0')}${i % 4 === 0 ? '-03-12C' : ''}`,
        source: i % 2 ? 'report' : 'travel-code',
        ...(i % 3 ? { ref: `s-${i}` } : {}),
        ...extra,
      });
    const ndjson = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) =>
        (from + k) % 17 === 0 ? sighting(from + k, { trainCode: 'X1' }) : sighting(from + k),
      ).join('\n') + '\n';
    await writeFile(path.join(several, 'a.ndjson'), ndjson(0, 60));
    await writeFile(path.join(several, 'b-no-header.csv'), 'when,train\n1,G1\n');
    await writeFile(
      path.join(several, 'c.csv'),
      'observedAt,trainCode,emuCode,source,ref\n' +
        Array.from(
          { length: 20 },
          (_, k) =>
            `${shanghai('20260905', '09:00') + k},G${k + 1},CR400AF-${2100 + k},report,c-${k}`,
        ).join('\n') +
        '\n',
    );
    await writeFile(path.join(several, 'd.ndjson'), ndjson(40, 130)); // repeats a's last 20
    await writeFile(path.join(several, 'e.ndjson'), '');
    await writeFile(path.join(several, 'f.ndjson'), ndjson(125, 140) + '{oops\n');
    for (const [chunkSize, parseThreads] of [
      [7, 1],
      [50, 2],
      [7, 2],
    ] as const) {
      const a = await ingestObservations(lineDb.db, several, { ...LINE_READER, chunkSize });
      const b = await ingestObservations(parallelDb.db, several, {
        parseThreads,
        parallelMinBytes: 0,
        chunkSize,
      });
      expect(totals(b)).toEqual(totals(a));
      expect(a.files.map((f) => f.file)).toEqual([
        'a.ndjson',
        'b-no-header.csv',
        'c.csv',
        'd.ndjson',
        'e.ndjson',
        'f.ndjson',
      ]);
      expect(a.files[1]!.error).toMatch(/^b-no-header\.csv: unknown format/);
    }
    expect(await stored(parallelDb)).toEqual(await stored(lineDb));
  }, 120_000);

  it('on a file of 100k generated lines (duplicates, bad lines, many days), in chunks', async () => {
    const big = path.join(dir, 'big');
    await mkdir(big);
    const out: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      if (i % 997 === 0) {
        out.push(`{"observedAt": ${i}, "trainCode": "G1"`); // cut short
        continue;
      }
      const n = i % 1009 === 0 ? i - 500 : i; // a repeat of a line 500 back
      out.push(
        JSON.stringify({
          observedAt: shanghai(`202609${String(10 + (n % 5)).padStart(2, '0')}`, '06:00') + n,
          trainCode: n % 311 === 0 ? 'X' : `G${1000 + (n % 700)}`,
          emuCode: `CR400AF-${String(3000 + (n % 400)).padStart(4, '0')}`,
          source: n % 3 === 0 ? 'travel-code' : 'report',
          ...(n % 2 === 0 ? { ref: `g-${n}` } : {}),
        }),
      );
    }
    await writeFile(path.join(big, 'generated.ndjson'), out.join('\n') + '\n');
    const [a, b] = await ingestBoth(big, 6_000);
    expect(a.read).toBe(100_000);
    expect(a.duplicate).toBeGreaterThan(50);
    expect(a.rejected).toBeGreaterThan(100);
    expect(totals(b)).toEqual(totals(a));
    expect(await stored(parallelDb)).toEqual(await stored(lineDb));
    // 200k lines ingested on a machine that may be busy: a generous bound, not a speed check.
  }, 300_000);
});
