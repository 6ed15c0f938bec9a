import type { HistoryRecord } from '../../domain/history/read-history.js';
import { trainCodeMember } from './daily-records-json.js';
import type { EmuCodeCache } from './emu-code-cache.js';
import type { TimetableSummaryCache } from './timetable-summary-cache.js';

/**
 * The data of GetTrainHistory and GetEmuHistory written as JSON text from the page's records,
 * as daily-records-json.ts does for GetDailyRecords: no item objects, no mapping objects, no
 * pass of the generic serializer over them; the mapping members come ready-made from the
 * caches. The bytes are the generic serializer's (fast-json-stringify over the routes' zod
 * schemas: required members first, then the optional ones present, each group in the schema's
 * order; mapping keys ascending, as an object with integer keys is walked):
 * test/api/history-json.test.ts compares them for random pages.
 */

export interface HistoryPageQuery {
  start?: number;
  end?: number;
  limit: number;
  cursor?: { text: string };
}

type Caches = { emuCodes: EmuCodeCache; timetables: TimetableSummaryCache };

/** `"cursor":..,"limit":..,"nextCursor":..` of a page. */
function pagingJson(query: HistoryPageQuery, records: readonly HistoryRecord[], more: boolean) {
  const last = records[records.length - 1];
  const next = more && last ? `${last.serviceDay}:${last.id}` : '';
  return (
    `"cursor":${JSON.stringify(query.cursor?.text ?? '')},"limit":${query.limit},` +
    `"nextCursor":${JSON.stringify(next)}`
  );
}

/** `,"start":..` and `,"end":..` as requested. */
function rangeJson(query: HistoryPageQuery): string {
  return (
    (query.start === undefined ? '' : `,"start":${query.start}`) +
    (query.end === undefined ? '' : `,"end":${query.end}`)
  );
}

function ascendingDistinct(ids: Iterable<number>): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * `,"emuCodeMappings":{..}` and, when an item has a timetable, `,"timetableMappings":{..}`
 * (one query each at most, for entries not cached yet). `alwaysEmuIds` are mapped even when no
 * item names them (an EMU history maps its EMU on an empty page too).
 */
async function mappingsJson(
  caches: Caches,
  records: readonly HistoryRecord[],
  alwaysEmuIds: readonly number[],
): Promise<string> {
  const emus = ascendingDistinct([...alwaysEmuIds, ...records.map((r) => r.emuId)]);
  const timetables = ascendingDistinct(
    records.flatMap((r) => (r.timetableId === null ? [] : [r.timetableId])),
  );
  await Promise.all([
    caches.emuCodes.load(emus),
    timetables.length > 0 ? caches.timetables.load(timetables) : undefined,
  ]);
  const members = (ids: readonly number[], json: (id: number) => string | undefined) =>
    ids.flatMap((id) => json(id) ?? []).join(',');
  const emuJson = `,"emuCodeMappings":{${members(emus, (id) => caches.emuCodes.json(id))}}`;
  if (timetables.length === 0) return emuJson;
  return `${emuJson},"timetableMappings":{${members(timetables, (id) => caches.timetables.json(id))}}`;
}

function timetableMember(r: HistoryRecord): string {
  return r.timetableId === null ? '' : `,"timetableId":${r.timetableId}`;
}

/** GetTrainHistory's data; `trainCode` is the number asked for, normalised (left out when it does not parse). */
export async function trainHistoryDataJson(
  caches: Caches,
  page: { trainCode: string; records: readonly HistoryRecord[]; more: boolean },
  query: HistoryPageQuery,
): Promise<string> {
  const items = page.records.map(
    (r) =>
      `{"id":${r.id},"serviceDay":${r.serviceDay},"emuId":${r.emuId},"status":${r.status}${timetableMember(r)}}`,
  );
  return (
    `{${pagingJson(query, page.records, page.more)},"items":[${items.join(',')}]` +
    `${trainCodeMember(page.trainCode)}${rangeJson(query)}${await mappingsJson(caches, page.records, [])}}`
  );
}

/** GetEmuHistory's data. */
export async function emuHistoryDataJson(
  caches: Caches,
  page: { emuId: number; records: readonly HistoryRecord[]; more: boolean },
  query: HistoryPageQuery,
): Promise<string> {
  const items = page.records.map(
    (r) =>
      `{"id":${r.id},"serviceDay":${r.serviceDay},"status":${r.status}${timetableMember(r)}` +
      `${trainCodeMember(r.trainCode)}}`,
  );
  return (
    `{"emuId":${page.emuId},${pagingJson(query, page.records, page.more)},` +
    `"items":[${items.join(',')}]${rangeJson(query)}` +
    `${await mappingsJson(caches, page.records, [page.emuId])}}`
  );
}
