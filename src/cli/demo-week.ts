import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { serviceDayFromYmd, ymdOfServiceDay } from '../shared/time/service-day.js';

/**
 * The fixture week (fixtures/observations and fixtures/timetables, 2026-08-10 .. 2026-08-16)
 * moved in time so that its last day is a given day: the demo's data then ends today, and the
 * first question a newcomer asks ("which unit ran G1 today") has an answer.
 *
 * Every date in the files moves by the same whole number of days: Unix times, ISO-8601 dates,
 * service dates, timetables' validity and the dates in file names. Shanghai keeps no summer time
 * since 1991, so a whole day is 86,400 s there. The fixture's deliberately bad lines stay bad for
 * the same reason: a line that is not JSON, or a date that is not a real one, is copied as it is,
 * and an impossible time keeps its impossible clock while its date moves.
 */
export const FIXTURE_FIRST_DAY = serviceDayFromYmd('20260810');
export const FIXTURE_LAST_DAY = serviceDayFromYmd('20260816');

const SECONDS_PER_DAY = 86_400;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?=T|$)/;

/** An ISO "YYYY-MM-DD..." string with its date moved, or undefined when it names no real day. */
function shiftIsoDate(value: string, days: number): string | undefined {
  const m = ISO_DATE.exec(value);
  if (!m) return undefined;
  const ymd = shiftYmd(`${m[1]}${m[2]}${m[3]}`, days);
  if (ymd === undefined) return undefined;
  return `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}${value.slice(m[0].length)}`;
}

/** "YYYYMMDD" moved by `days`, or undefined when it is not a real date (kept as the fixture has it). */
function shiftYmd(value: string, days: number): string | undefined {
  try {
    return ymdOfServiceDay(serviceDayFromYmd(value) + days);
  } catch {
    return undefined;
  }
}

function shiftField(record: Record<string, unknown>, key: string, days: number): void {
  const v = record[key];
  if (typeof v === 'number' && Number.isFinite(v)) record[key] = v + days * SECONDS_PER_DAY;
  else if (typeof v === 'string') {
    const moved = /^\d{8}$/.test(v) ? shiftYmd(v, days) : shiftIsoDate(v, days);
    if (moved !== undefined) record[key] = moved;
  }
}

const OBSERVATION_DATES = ['observedAt', 'serviceDate'];
const TIMETABLE_DATES = ['validFrom', 'validTo'];

/** One JSON record with its date fields moved; a line that is not a JSON object is kept. */
function shiftJsonRecord(text: string, keys: string[], days: number, indent?: number): string {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return text;
  for (const key of keys) shiftField(record as Record<string, unknown>, key, days);
  return JSON.stringify(record, null, indent);
}

/** A CSV of simple fields (no quotes: the fixture's own) with its date columns moved. */
function shiftCsv(text: string, keys: string[], days: number): string {
  const [header, ...rows] = text.split('\n');
  const columns = header!.split(',');
  const dated = keys.map((k) => columns.indexOf(k)).filter((i) => i >= 0);
  const moved = rows.map((row) => {
    if (row.includes('"')) return row;
    const fields = row.split(',');
    for (const i of dated) {
      const v = fields[i];
      if (v === undefined || v === '') continue;
      const record: Record<string, unknown> = {
        v: /^\d+$/.test(v) && v.length !== 8 ? Number(v) : v,
      };
      shiftField(record, 'v', days);
      fields[i] = String(record.v);
    }
    return fields.join(',');
  });
  return [header, ...moved].join('\n');
}

/** A file name's dates moved: "2026-08-10_13" (a first date and a last day) and "20260815". */
function shiftFileName(name: string, days: number): string {
  return name
    .replace(/(\d{4}-\d{2}-\d{2})_(\d{2})(?!\d)/, (whole, first: string, lastDd: string) => {
      const start = shiftIsoDate(first, days);
      if (start === undefined) return whole;
      const span = Number(lastDd) - Number(first.slice(8, 10));
      const end = shiftIsoDate(first, days + span);
      return `${start}_${end?.slice(8, 10) === undefined ? lastDd : end.slice(8, 10)}`;
    })
    .replace(/(?<!\d)\d{8}(?!\d)/, (ymd) => shiftYmd(ymd, days) ?? ymd);
}

async function shiftDirectory(
  from: string,
  to: string,
  keys: string[],
  days: number,
): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of (await readdir(from)).sort()) {
    const text = await readFile(path.join(from, name), 'utf8');
    let out: string;
    if (name.endsWith('.ndjson'))
      out = text
        .split('\n')
        .map((line) => (line.trim() === '' ? line : shiftJsonRecord(line, keys, days)))
        .join('\n');
    else if (name.endsWith('.json')) out = `${shiftJsonRecord(text, keys, days, 2)}\n`;
    else if (name.endsWith('.csv')) out = shiftCsv(text, keys, days);
    else out = text;
    await writeFile(path.join(to, shiftFileName(name, days)), out);
  }
}

export interface DemoWeek {
  firstDay: number;
  lastDay: number;
  /** The directory of the moved observation files. */
  observations: string;
  /** The directory of the moved timetable files. */
  timetables: string;
}

/**
 * Writes the fixture week moved to end on `lastDay` under `outDir` (emptied first), and says
 * where the moved observations and timetables are.
 */
export async function writeDemoWeek(
  fixtures: string,
  outDir: string,
  lastDay: number,
): Promise<DemoWeek> {
  const days = lastDay - FIXTURE_LAST_DAY;
  await rm(outDir, { recursive: true, force: true });
  const observations = path.join(outDir, 'observations');
  const timetables = path.join(outDir, 'timetables');
  await shiftDirectory(path.join(fixtures, 'observations'), observations, OBSERVATION_DATES, days);
  await shiftDirectory(path.join(fixtures, 'timetables'), timetables, TIMETABLE_DATES, days);
  return { firstDay: FIXTURE_FIRST_DAY + days, lastDay, observations, timetables };
}
