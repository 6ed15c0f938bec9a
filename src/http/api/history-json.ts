import type { HistoryRecord } from '../../domain/history/read-history.js';
import type { HistoryItemJson, HistoryPageJson } from '../../domain/history/kept-histories.js';
import { trainCodeMember } from './daily-records-json.js';
import type { EmuCodeCache } from '../../domain/emus/emu-code-cache.js';
import type { TimetableSummaryCache } from '../../domain/timetables/timetable-summary-cache.js';

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

/** The ids in ascending order, each once (a typed array sorts numbers without a comparator). */
function ascendingDistinct(ids: Set<number>): Float64Array {
  return Float64Array.from(ids).sort();
}

/**
 * `,"emuCodeMappings":{..}` and, when an item has a timetable, `,"timetableMappings":{..}`
 * (one query each at most, for entries not cached yet). `alwaysEmuId` is mapped even when no
 * item names it (an EMU history maps its EMU on an empty page too).
 */
async function mappingsJson(
  caches: Caches,
  records: readonly HistoryRecord[],
  alwaysEmuId?: number,
): Promise<string> {
  const emuSet = new Set<number>();
  const timetableSet = new Set<number>();
  if (alwaysEmuId !== undefined) emuSet.add(alwaysEmuId);
  for (const r of records) {
    emuSet.add(r.emuId);
    if (r.timetableId !== null) timetableSet.add(r.timetableId);
  }
  const emus = ascendingDistinct(emuSet);
  const timetables = ascendingDistinct(timetableSet);
  await Promise.all([
    caches.emuCodes.load(emus),
    timetables.length > 0 ? caches.timetables.load(timetables) : undefined,
  ]);
  const members = (ids: Float64Array, json: (id: number) => string | undefined) => {
    let out = '';
    for (const id of ids) {
      const member = json(id);
      if (member !== undefined) out += out === '' ? member : `,${member}`;
    }
    return out;
  };
  const emuJson = `,"emuCodeMappings":{${members(emus, (id) => caches.emuCodes.json(id))}}`;
  if (timetables.length === 0) return emuJson;
  return `${emuJson},"timetableMappings":{${members(timetables, (id) => caches.timetables.json(id))}}`;
}

function timetableMember(r: HistoryRecord): string {
  return r.timetableId === null ? '' : `,"timetableId":${r.timetableId}`;
}

/** One item of GetTrainHistory. */
export function trainHistoryItemJson(r: HistoryRecord): string {
  return `{"id":${r.id},"serviceDay":${r.serviceDay},"emuId":${r.emuId},"status":${r.status}${timetableMember(r)},"sources":${r.sourcesJson}}`;
}

/** One item of GetEmuHistory. */
export function emuHistoryItemJson(r: HistoryRecord): string {
  return (
    `{"id":${r.id},"serviceDay":${r.serviceDay},"status":${r.status}${timetableMember(r)}` +
    `${trainCodeMember(r.trainCode)},"sources":${r.sourcesJson}}`
  );
}

/** The items' writers of KeptHistories. */
export const historyItemJson: HistoryItemJson = {
  train: trainHistoryItemJson,
  emu: emuHistoryItemJson,
};

/**
 * GetTrainHistory's data as JSON text pieces (in order; see utf8Concat); `trainCode` is the
 * number asked for, normalised (left out when it does not parse).
 */
export async function trainHistoryDataJson(
  caches: Caches,
  page: HistoryPageJson & { trainCode: string },
  query: HistoryPageQuery,
): Promise<string[]> {
  const items = page.itemsJson ?? page.records.map(trainHistoryItemJson).join(',');
  return [
    `{${pagingJson(query, page.records, page.more)},"items":[`,
    items,
    `]${trainCodeMember(page.trainCode)}${rangeJson(query)}${await mappingsJson(caches, page.records)}}`,
  ];
}

/** GetEmuHistory's data as JSON text pieces (in order). */
export async function emuHistoryDataJson(
  caches: Caches,
  page: HistoryPageJson & { emuId: number },
  query: HistoryPageQuery,
): Promise<string[]> {
  const items = page.itemsJson ?? page.records.map(emuHistoryItemJson).join(',');
  return [
    `{"emuId":${page.emuId},${pagingJson(query, page.records, page.more)},"items":[`,
    items,
    `]${rangeJson(query)}${await mappingsJson(caches, page.records, page.emuId)}}`,
  ];
}
