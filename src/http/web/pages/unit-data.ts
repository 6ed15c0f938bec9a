import {
  STATUS_CONFIRMED,
  STATUS_COUPLED_SECOND,
} from '../../../domain/records/build-daily-records.js';
import { readEmuAllocation, type EmuAllocation } from '../../../domain/emus/read-allocation.js';
import type { HistoryRecord } from '../../../domain/history/read-history.js';
import type { TimetableSummary } from '../../../domain/timetables/timetable-summary-cache.js';
import { HISTORIES_VERSION, type DataVersionRef } from '../../../shared/cache/data-versions.js';
import type { ApiServices } from '../../app-context.js';
import { PageNotFoundError } from '../web-errors.js';

/** What a unit's page (and its CSV) depend on: the register (allocation, aliases) and histories. */
export const UNIT_DEPENDS: readonly DataVersionRef[] = [{ name: 'emus' }, HISTORIES_VERSION];

/** Records of the history list per page. */
export const HISTORY_PAGE = 30;
/** The longest range the CSV writes, in days (a year, a leap day included). */
export const CSV_MAX_DAYS = 366;
/** More records than a unit runs in a month or a year's days, to read a range whole. */
const MONTH_RECORDS = 31 * 40;
const RANGE_RECORDS = CSV_MAX_DAYS * 40;

/** A record with its timetable's ends (when one was in force). */
export interface UnitRecord extends HistoryRecord {
  timetable?: TimetableSummary;
  confirmed: boolean;
  coupled: boolean;
}

/**
 * The part of the page version that is the histories': kept histories are kept under it, the
 * same key as GetEmuHistory's, so the API and the pages share one read of a history.
 */
function historiesPart(version: string): string {
  return version.split('+').find((part) => part.startsWith('histories:')) ?? version;
}

/** The unit a written code names (after merges) and its canonical code, or a 404 with suggestions. */
export async function findUnit(
  services: ApiServices,
  written: string,
  suggest: (text: string) => Promise<{ label: string; href: string }[]>,
): Promise<{ emuId: number; code: string }> {
  const emuId = written.length > 64 ? undefined : await services.emuAliases.find(written);
  if (emuId !== undefined) {
    await services.emuCodes.load([emuId]);
    const code = services.emuCodes.code(emuId);
    if (code !== undefined) return { emuId, code };
  }
  throw new PageNotFoundError(`no unit is known as ${written}`, await suggest(written));
}

/** The allocation of a found unit (read at the page's version). */
export async function allocationOf(services: ApiServices, emuId: number): Promise<EmuAllocation> {
  const allocation = await readEmuAllocation(services.db, emuId);
  if (!allocation) throw new PageNotFoundError(`no unit has id ${emuId}`);
  return allocation;
}

/** Records with their timetables' summaries (one query for the ones not cached). */
async function withTimetables(
  services: ApiServices,
  records: readonly HistoryRecord[],
): Promise<UnitRecord[]> {
  const ids = new Set<number>();
  for (const r of records) if (r.timetableId !== null) ids.add(r.timetableId);
  if (ids.size > 0) await services.timetables.load(ids);
  return records.map((r) => {
    const timetable =
      r.timetableId === null ? undefined : services.timetables.summary(r.timetableId);
    return {
      ...r,
      ...(timetable ? { timetable } : {}),
      confirmed: (r.status & STATUS_CONFIRMED) !== 0,
      // The two coupling bits (unknown position, first, second) mask as the second's value.
      coupled: (r.status & STATUS_COUPLED_SECOND) !== 0,
    };
  });
}

/**
 * One page of the unit's history, newest first (GetEmuHistory's page for the same limit and
 * cursor), and the cursor of the next page ("" on the last).
 */
export async function historyPage(
  services: ApiServices,
  emuId: number,
  version: string,
  options: { before?: { serviceDay: number; id: number }; fromDay?: number; toDay?: number },
  limit = HISTORY_PAGE,
): Promise<{ records: UnitRecord[]; nextCursor: string }> {
  const page = await services.histories.emuPage(emuId, historiesPart(version), {
    limit,
    ...options,
  });
  const last = page.records[page.records.length - 1];
  return {
    records: await withTimetables(services, page.records),
    nextCursor: page.more && last ? `${last.serviceDay}:${last.id}` : '',
  };
}

/** Every record of the unit between two service days (inclusive), newest first. */
export async function recordsBetween(
  services: ApiServices,
  emuId: number,
  version: string,
  fromDay: number,
  toDay: number,
  kind: 'month' | 'range',
): Promise<UnitRecord[]> {
  const limit = kind === 'month' ? MONTH_RECORDS : RANGE_RECORDS;
  return (await historyPage(services, emuId, version, { fromDay, toDay }, limit)).records;
}

/** The day's records in running order: by departure, then number (no timetable: last). */
export function inRunningOrder(records: readonly UnitRecord[]): UnitRecord[] {
  const start = (r: UnitRecord) => r.timetable?.startOffset ?? Number.MAX_SAFE_INTEGER;
  return [...records].sort(
    (a, b) =>
      start(a) - start(b) || (a.trainCode < b.trainCode ? -1 : a.trainCode > b.trainCode ? 1 : 0),
  );
}
