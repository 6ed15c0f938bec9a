import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEmuCode } from '../../src/domain/emus/normalize-emu-code.js';
import { BUREAUS } from '../../src/generator/bureaus.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { expandTrainCodes } from '../../src/domain/trains/train-code.js';
import { generate, minutesOf, readDataset, type Generated } from './support.js';

const EMUS = 200;
const DAYS = 3;

let gen: Generated;
let data: Awaited<ReturnType<typeof readDataset>>;
let fleet: Record<string, string>[];

beforeAll(async () => {
  gen = await generate({ emus: EMUS, days: DAYS, seed: 3 });
  data = await readDataset(gen.dir);
  fleet = parse(await readFile(path.join(gen.dir, 'fleet.csv'), 'utf8'), { columns: true });
});

describe('generated fleet', () => {
  it('writes fleet.csv in the fleet-import format with unique canonical codes', async () => {
    const text = await readFile(path.join(gen.dir, 'fleet.csv'), 'utf8');
    expect(text.split('\n')[0]).toBe(
      'emu_code,model,bureau,train_depot,depot,design_max_speed,operating_max_speed',
    );
    expect(fleet).toHaveLength(EMUS);
    expect(new Set(fleet.map((r) => r.emu_code)).size).toBe(EMUS);
    const bureaus = new Set(BUREAUS.map((b) => b.name));
    for (const row of fleet) {
      const parsed = parseEmuCode(row.emu_code!);
      expect(parsed.code).toBe(row.emu_code);
      expect(parsed.model).toBe(row.model);
      expect(bureaus.has(row.bureau!)).toBe(true);
      expect(row.train_depot).toMatch(/动车段$/);
      expect(row.depot).toMatch(/动车所$/);
      expect(Number(row.operating_max_speed)).toBeLessThanOrEqual(Number(row.design_max_speed));
    }
    // Realistic weighting: the big Fuxing and Hexie models dominate, several bureaus appear.
    expect(new Set(fleet.map((r) => r.model)).size).toBeGreaterThan(10);
    expect(new Set(fleet.map((r) => r.bureau)).size).toBeGreaterThan(8);
  });
});

describe('generated network', () => {
  it('is sized at about 2.7 records per unit per day', () => {
    for (const day of gen.manifest.perDay) {
      expect(day.records).toBeGreaterThan(EMUS * 2.2);
      expect(day.records).toBeLessThan(EMUS * 3.2);
    }
    expect(gen.manifest.counts.stations).toBeGreaterThanOrEqual(100);
    expect(gen.manifest.counts.records).toBe(
      gen.manifest.perDay.reduce((a, d) => a + d.records, 0),
    );
  });

  it('gives each unit at most one circulation of its own model, cycleDays groups of 1 or 2', () => {
    const modelOf = new Map(fleet.map((r) => [r.emu_code!, r.model!]));
    const seen = new Set<string>();
    for (const c of data.circulations) {
      expect(c.cycleDays).toBeGreaterThanOrEqual(1);
      expect(c.cycleDays).toBeLessThanOrEqual(4);
      expect(c.days).toHaveLength(c.cycleDays);
      expect(c.units).toHaveLength(c.cycleDays * (c.coupled ? 2 : 1));
      for (const u of c.units) {
        expect(seen.has(u), u).toBe(false);
        seen.add(u);
        expect(modelOf.get(u)).toBe(c.model);
      }
    }
    expect(seen.size).toBeGreaterThan(EMUS * 0.9);
  });

  it('chains every circulation: each train leaves where the previous one arrived, later', () => {
    for (const c of data.circulations) {
      const trains = c.days.flat().map((w) => data.byWritten.get(w)!);
      expect(trains.every(Boolean), c.circulationId).toBe(true);
      for (let i = 0; i < trains.length; i++) {
        const prev = trains[(i + trains.length - 1) % trains.length]!;
        const next = trains[i]!;
        expect(next.stops[0]!.stationName, `${c.circulationId} ${next.trainCode}`).toBe(
          prev.stops.at(-1)!.stationName,
        );
      }
      for (const day of c.days) {
        const ts = day.map((w) => data.byWritten.get(w)!);
        expect(ts.length).toBeGreaterThanOrEqual(2);
        expect(ts.length).toBeLessThanOrEqual(6);
        expect(minutesOf(ts[0]!.stops[0]!.depart!)).toBeGreaterThanOrEqual(6 * 60);
        for (let i = 1; i < ts.length; i++) {
          const gap =
            minutesOf(ts[i]!.stops[0]!.depart!) - minutesOf(ts[i - 1]!.stops.at(-1)!.arrive!);
          expect(gap).toBeGreaterThanOrEqual(20);
          expect(gap).toBeLessThanOrEqual(120);
        }
        // The next cycle day starts the following morning, after this one's last arrival.
        expect(minutesOf(ts.at(-1)!.stops.at(-1)!.arrive!)).toBeLessThanOrEqual(25 * 60);
      }
    }
  });

  it('writes one timetable per train with valid, unique numbers and increasing stops', () => {
    const inCirculation = data.circulations.flatMap((c) => c.days.flat()).sort();
    expect(data.timetables.map((t) => t.trainCode).sort()).toEqual(inCirculation);
    const allCodes = data.timetables.flatMap((t) => t.allCodes);
    expect(new Set(allCodes).size).toBe(allCodes.length);
    for (const t of data.timetables) {
      expect(expandTrainCodes(t.trainCode)).toEqual(t.allCodes);
      for (const code of t.allCodes) {
        expect(code).toMatch(/^(G|D)[1-9]\d{0,3}$|^C[1-9]\d{3}$/);
        expect(Number(code.slice(1))).toBeLessThanOrEqual(9998);
      }
      expect(t.validFrom).toBe('20260801');
      expect(t.internalCode).toHaveLength(12);
      expect(t.internalCode).toContain(t.allCodes[0]!.padStart(8, '0'));
      expect(t.stops.length).toBeGreaterThanOrEqual(2);
      expect(t.stops[0]!.arrive).toBeUndefined();
      expect(t.stops.at(-1)!.depart).toBeUndefined();
      let last = -1;
      let lastKm = -1;
      for (const s of t.stops) {
        for (const time of [s.arrive, s.depart]) {
          if (time === undefined) continue;
          expect(time).toMatch(/^\d{2}:[0-5]\d$/);
          expect(minutesOf(time)).toBeGreaterThan(last);
          last = minutesOf(time);
        }
        expect(s.distance).toBeGreaterThan(lastKm);
        lastKm = s.distance;
      }
    }
  });

  it('writes assignments as the circulations say: unit k runs cycle day (k + d) mod L', () => {
    const first = serviceDayFromYmd('20260801');
    const expected: string[] = [];
    for (let d = 0; d < DAYS; d++) {
      for (const c of data.circulations) {
        const size = c.coupled ? 2 : 1;
        for (let k = 0; k < c.cycleDays; k++) {
          for (const written of c.days[(k + d) % c.cycleDays]!) {
            for (const unit of c.units.slice(k * size, k * size + size)) {
              for (const code of expandTrainCodes(written))
                expected.push(`${first + d}|${code}|${unit}|${c.coupled}`);
            }
          }
        }
      }
    }
    const actual = data.assignments.map(
      (a) => `${a.serviceDay}|${a.trainCode}|${a.emuCode}|${a.coupled}`,
    );
    expect(actual.sort()).toEqual(expected.sort());
    expect(gen.manifest.counts.assignmentLines).toBe(actual.length);
  });
});

describe('generated network at full size', () => {
  it('gives about 12,000 records a day for 4,500 EMUs, with coupled, paired and late trains', async () => {
    const { manifest } = await generate({ emus: 4500, days: 1, seed: 1 });
    const { counts } = manifest;
    expect(manifest.perDay[0]!.records).toBeGreaterThan(11_000);
    expect(manifest.perDay[0]!.records).toBeLessThan(13_000);
    expect(counts.coupledCirculations / counts.circulations).toBeGreaterThan(0.03);
    expect(counts.coupledCirculations / counts.circulations).toBeLessThan(0.08);
    expect(counts.pairedTrains / counts.trains).toBeGreaterThan(0.01);
    expect(counts.pairedTrains / counts.trains).toBeLessThan(0.03);
    expect(counts.crossMidnightTrains).toBeGreaterThan(20);
    expect(counts.crossMidnightTrains / counts.trains).toBeLessThan(0.03);
  });
});
