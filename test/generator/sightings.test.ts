import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEmuCode } from '../../src/domain/emus/normalize-emu-code.js';
import {
  isProblem,
  toObservationRecord,
  type ObservationRecord,
} from '../../src/domain/ingest/observation-record.js';
import {
  midnightOfServiceDay,
  serviceDayOf,
  ymdOfServiceDay,
} from '../../src/shared/time/service-day.js';
import {
  generate,
  minutesOf,
  readDataset,
  readLines,
  type Generated,
  type TimetableLine,
} from './support.js';

interface Sighting {
  file: string;
  line: string;
  raw: Record<string, unknown>;
  record: ObservationRecord;
}

async function readSightings(gen: Generated): Promise<Sighting[]> {
  const out: Sighting[] = [];
  for (const f of gen.manifest.files) {
    for (const line of await readLines(path.join(gen.dir, f.path))) {
      const raw = JSON.parse(line) as Record<string, unknown>;
      const record = toObservationRecord(raw);
      if (isProblem(record)) throw new Error(`${f.path}: ${record.reason}: ${line}`);
      out.push({ file: f.path, line, raw, record });
    }
  }
  return out;
}

/**
 * The service day a sighting truly belongs to: its stated serviceDate, else the day its train
 * left, which is the day before for the after-midnight part of a late train.
 */
function trueServiceDay(s: Sighting, timetableOf: (code: string) => TimetableLine): number {
  if (s.record.serviceDateGiven) return s.record.serviceDay;
  const day = serviceDayOf(s.record.observedAt);
  const t = timetableOf(s.record.trainCodes[0]!);
  const arrive = minutesOf(t.stops.at(-1)!.arrive!);
  const minuteOfDay = (s.record.observedAt - midnightOfServiceDay(day)) / 60;
  return arrive > 1440 && minuteOfDay <= arrive - 1440 ? day - 1 : day;
}

async function truthIndex(gen: Generated) {
  const data = await readDataset(gen.dir);
  const byCode = new Map<string, TimetableLine>();
  for (const t of data.timetables) for (const c of t.allCodes) byCode.set(c, t);
  const truth = new Set(data.assignments.map((a) => `${a.serviceDay}|${a.trainCode}|${a.emuCode}`));
  return { data, timetableOf: (code: string) => byCode.get(code)!, truth };
}

describe('generated sightings with no noise', () => {
  it('match the ground truth exactly, every record seen at least three times', async () => {
    const gen = await generate({ emus: 200, days: 3, seed: 5, missingRate: 0, wrongRate: 0 });
    const { data, timetableOf, truth } = await truthIndex(gen);
    const sightings = await readSightings(gen);
    // Seen per run: a paired run is sighted under either of its numbers, or both.
    const seen = new Map<string, number>();
    for (const s of sightings) {
      const day = trueServiceDay(s, timetableOf);
      const emu = parseEmuCode(s.record.emuCode).code;
      for (const code of s.record.trainCodes) {
        expect(truth.has(`${day}|${code}|${emu}`), s.line).toBe(true);
      }
      const run = `${day}|${timetableOf(s.record.trainCodes[0]!).trainCode}|${emu}`;
      seen.set(run, (seen.get(run) ?? 0) + 1);
      // A sighting lies within its train's run.
      const t = timetableOf(s.record.trainCodes[0]!);
      const minute = (s.record.observedAt - midnightOfServiceDay(day)) / 60;
      expect(minute).toBeGreaterThanOrEqual(minutesOf(t.stops[0]!.depart!));
      expect(minute).toBeLessThanOrEqual(minutesOf(t.stops.at(-1)!.arrive!) + 1);
    }
    for (const a of data.assignments) {
      const run = `${a.serviceDay}|${timetableOf(a.trainCode).trainCode}|${a.emuCode}`;
      expect(seen.get(run) ?? 0, run).toBeGreaterThanOrEqual(3);
    }
    const unique = new Set(sightings.map((s) => s.line)).size;
    expect(unique).toBe(gen.manifest.counts.sightings);
    expect(sightings.length).toBe(gen.manifest.counts.lines);
    const perRecord = gen.manifest.counts.sightings / gen.manifest.counts.records;
    expect(perRecord).toBeGreaterThan(4.7);
    expect(perRecord).toBeLessThan(5.3);
  });

  it('files each sighting under the day it falls on, in time order, late ones without serviceDate', async () => {
    const gen = await generate({ emus: 300, days: 2, seed: 11, missingRate: 0, wrongRate: 0 });
    const { timetableOf } = await truthIndex(gen);
    const sightings = await readSightings(gen);
    let afterMidnight = 0;
    let previous = { file: '', t: 0 };
    for (const s of sightings) {
      const fileDay = path.basename(s.file, '.ndjson');
      expect(ymdOfServiceDay(serviceDayOf(s.record.observedAt))).toBe(fileDay);
      if (s.file === previous.file) expect(s.record.observedAt).toBeGreaterThanOrEqual(previous.t);
      previous = { file: s.file, t: s.record.observedAt };
      if (trueServiceDay(s, timetableOf) !== serviceDayOf(s.record.observedAt)) {
        afterMidnight++;
        expect(s.raw.serviceDate).toBeUndefined();
      }
    }
    expect(afterMidnight).toBeGreaterThan(0);
    expect(gen.manifest.files).toHaveLength(3);
  });

  it('writes codes and times in the ways real sources do', async () => {
    const gen = await generate({ emus: 300, days: 2, seed: 13 });
    const sightings = await readSightings(gen);
    const share = (f: (s: Sighting) => boolean) => sightings.filter(f).length / sightings.length;
    expect(share((s) => typeof s.raw.observedAt === 'string')).toBeGreaterThan(0.015);
    expect(share((s) => typeof s.raw.observedAt === 'string')).toBeLessThan(0.05);
    for (const s of sightings.filter((x) => typeof x.raw.observedAt === 'string')) {
      expect(s.raw.observedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/);
    }
    expect(share((s) => s.raw.ref === undefined)).toBeGreaterThan(0.25);
    expect(share((s) => s.raw.ref === undefined)).toBeLessThan(0.35);
    expect(share((s) => !String(s.raw.emuCode).includes('-'))).toBeGreaterThan(0.07);
    const travel = sightings.filter((s) => s.raw.source === 'travel-code');
    const qr = travel.filter((s) => /-\d{2}-\d{2}[A-F]$/.test(String(s.raw.emuCode)));
    expect(qr.length / travel.length).toBeGreaterThan(0.25);
    expect(qr.length / travel.length).toBeLessThan(0.35);
    expect(new Set(sightings.map((s) => s.raw.source))).toEqual(
      new Set(['travel-code', 'station-board', 'report']),
    );
    expect(sightings.some((s) => String(s.raw.trainCode).includes('/'))).toBe(true);
    // A QR names the coach, so its sighting says the unit's place; reports may say fault or spare.
    const placed = sightings.filter((s) => s.raw.position !== undefined);
    expect(placed.length).toBeGreaterThan(qr.length * 0.8);
    for (const s of placed) expect(String(s.raw.emuCode)).toMatch(/-\d{2}-\d{2}[A-F]$/);
    expect(new Set(placed.map((s) => s.raw.position))).toEqual(
      new Set(['single', 'first', 'second']),
    );
    for (const s of sightings.filter(
      (x) => x.raw.fault !== undefined || x.raw.spare !== undefined,
    )) {
      expect(s.raw.source).toBe('report');
    }
    const dupes = sightings.length - new Set(sightings.map((s) => s.line)).size;
    expect(dupes).toBe(gen.manifest.counts.duplicateLines);
    const refs = new Map<string, string>();
    for (const s of sightings) {
      if (s.record.ref === null) continue;
      const key = `${s.record.source}|${s.record.ref}`;
      // A ref names one sighting: a second line with it is the same line again.
      expect(refs.get(key) ?? s.line).toBe(s.line);
      refs.set(key, s.line);
      expect(s.record.ref).not.toContain('2026');
    }
  });
});

describe('generated sightings with noise', () => {
  it('honours the missing and wrong rates', async () => {
    const gen = await generate({ emus: 300, days: 2, seed: 17, missingRate: 0.3, wrongRate: 0.1 });
    const { timetableOf, truth } = await truthIndex(gen);
    const sightings = await readSightings(gen);
    const { counts } = gen.manifest;
    const missing = counts.droppedSightings / (counts.droppedSightings + counts.sightings);
    expect(missing).toBeGreaterThan(0.27);
    expect(missing).toBeLessThan(0.33);

    const unique = new Map(sightings.map((s) => [s.line, s]));
    let wrong = 0;
    for (const s of unique.values()) {
      const day = trueServiceDay(s, timetableOf);
      const emu = parseEmuCode(s.record.emuCode).code;
      if (!truth.has(`${day}|${s.record.trainCodes[0]}|${emu}`)) wrong++;
    }
    expect(wrong).toBe(counts.wrongSightings);
    expect(wrong / unique.size).toBeGreaterThan(0.08);
    expect(wrong / unique.size).toBeLessThan(0.12);
  });

  it('adds malformed lines only when asked, each refused by ingestion', async () => {
    const gen = await generate({ emus: 200, days: 1, seed: 19, badRate: 0.02 });
    let bad = 0;
    let good = 0;
    for (const f of gen.manifest.files) {
      for (const line of await readLines(path.join(gen.dir, f.path))) {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          bad++;
          continue;
        }
        if (isProblem(toObservationRecord(value))) bad++;
        else good++;
      }
    }
    expect(bad).toBe(gen.manifest.counts.badLines);
    expect(bad).toBeGreaterThan(0);
    expect(good).toBe(gen.manifest.counts.sightings + gen.manifest.counts.duplicateLines);
  });
});
