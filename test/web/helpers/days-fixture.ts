import type { Db } from '../../../src/shared/db/db.js';
import { renderDailyExport } from '../../../src/domain/exports/daily-export-csv.js';
import { buildDailyRecords } from '../../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../../src/shared/time/service-day.js';
import { unsafeMarkup } from '../../helpers/html-safety.js';
import { ingestTimetableLines, timetable } from '../../helpers/timetables.js';
import { FIRST_DAY, LAST_DAY, loadFixtureWeek } from '../../api/helpers/fixture-week.js';

/** Station names a timetable may carry that must print as text. */
export const HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>'] as const;

/** A station of its own with more trains than one page of its board holds. */
export const BUSY = '测试站';
export const BUSY_TRAINS = 60;

/** The day whose G7301 runs on the hostile timetable (rebuilt after it came in). */
export const HOSTILE_DAY = serviceDayFromYmd('20260812');

/**
 * The fixture week, plus: G9999 through 上海虹桥 between two hostile stations, G7301 from
 * 20260812 between them too (that day rebuilt, so its records name that timetable), 60 trains
 * at 测试站, and every day's CSV export rendered.
 */
export async function loadDaysFixture(db: Db): Promise<void> {
  await loadFixtureWeek(db);
  await ingestTimetableLines(db, [
    timetable('G9999', '20260801', [
      [HOSTILE[0], undefined, '08:00'],
      ['上海虹桥', '09:00', '09:05'],
      [HOSTILE[1], '23:30', '24:20'],
      ['终点站', '25:10', undefined],
    ]),
    timetable('G7301', '20260812', [
      [HOSTILE[1], undefined, '10:05'],
      [HOSTILE[0], '11:05', undefined],
    ]),
    ...Array.from({ length: BUSY_TRAINS }, (_, i) =>
      timetable(`C${7000 + i}`, '20260801', [
        [BUSY, undefined, `${String(6 + Math.floor(i / 6)).padStart(2, '0')}:${i % 6}0`],
        ['乙', '23:00', undefined],
      ]),
    ),
  ]);
  await buildDailyRecords(db, HOSTILE_DAY);
  for (let day = FIRST_DAY; day <= LAST_DAY; day++) {
    await renderDailyExport(db, day, { today: LAST_DAY });
  }
}

/**
 * What in a page's table (where the data's names print) could run script, and whether the raw
 * payloads appear anywhere in the page (its title and h1 included).
 */
export function unsafeIn(page: string): string[] {
  const table = page.match(/<table[\s\S]*<\/table>/)?.[0] ?? '';
  const raw = HOSTILE.filter((name) => page.includes(name)).map((name) => `raw ${name}`);
  return [...raw, ...unsafeMarkup(table)];
}

/** The rows of a page's table: each row's cells as text (tags dropped, entities kept). */
export function tableRows(page: string): string[][] {
  const body = page.match(/<tbody>([\s\S]*?)<\/tbody>/)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) =>
      cell[1]!
        .replace(/<[^>]*>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}
