import { splitTrainCode } from '../../domain/trains/train-code.js';
import { Lru } from '../../shared/cache/lru.js';
import { flatString } from '../../shared/cache/flat-string.js';
import { parseRecordLine } from '../../domain/records/read-daily-records.js';
import type { EmuCodeCache } from '../../domain/emus/emu-code-cache.js';
import type { TimetableSummaryCache } from '../../domain/timetables/timetable-summary-cache.js';

/**
 * The success body of GetDailyRecords, written as JSON text directly: the API's hot path. The
 * generic serializer (fast-json-stringify over the zod schema) needs objects for 200 items and an
 * integer-keyed emuCodeMappings object, then writes a string of ~2,000 pieces. Here each item's
 * JSON and its mapping members are made once per record and version of its day (DailyRecordDays
 * keeps the day's items, and their JSON joined once): a page joins ready-made pieces. The output
 * is the schema's (dailyRecordsDataSchema): the tests parse it with the schema and compare it
 * with the generic serializer's.
 */
export interface RecordItemJson {
  id: number;
  emuId: number;
  timetableId: number | null;
  /** The DailyRecordItem as JSON. */
  json: string;
  /** Its EMU's emuCodeMappings member (withMappingMembers), '' for an EMU not found. */
  emuMember: string;
  /** Its timetable's timetableMappings member (withMappingMembers), '' for none. */
  timetableMember: string;
  /**
   * Index, in the list withMappingMembers was given, of the last item before it with the same
   * EMU (-1: none): in a page cut from that list at `from`, the item is its EMU's first when
   * this is below `from`, with no set of EMUs seen built per page.
   */
  emuBefore: number;
  /** The same for its timetable (-1 for none, or no timetable). */
  timetableBefore: number;
}

// `,"trainCode":{...}` per train code ("" when a stored code does not parse).
const trainCodeJson = new Lru<string, string>({ maxEntries: 100_000 });

/** `,"trainCode":{"prefix":..,"number":..}` of a stored train code, '' when it does not parse. */
export function trainCodeMember(code: string): string {
  let json = trainCodeJson.get(code);
  if (json === undefined) {
    try {
      const { prefix, number } = splitTrainCode(code);
      json = `,"trainCode":{"prefix":${JSON.stringify(prefix)},"number":${number}}`;
    } catch {
      json = '';
    }
    trainCodeJson.set(code, json);
  }
  return json;
}

function itemOf(serviceDay: number, line: string): RecordItemJson {
  const row = parseRecordLine(line);
  const timetable = row.timetableId === null ? '' : `,"timetableId":${row.timetableId}`;
  return {
    id: row.id,
    emuId: row.emuId,
    timetableId: row.timetableId,
    json: flatString(
      `{"id":${row.id},"serviceDay":${serviceDay}${timetable},"emuId":${row.emuId}` +
        `${trainCodeMember(row.trainCode)},"status":${row.status}}`,
    ),
    emuMember: '',
    timetableMember: '',
    emuBefore: -1,
    timetableBefore: -1,
  };
}

/** The items of a day's or a page's lines (read-daily-records.ts), in their order. */
export function recordItems(serviceDay: number, lines: readonly string[]): RecordItemJson[] {
  return lines.map((line) => itemOf(serviceDay, line));
}

export interface MappingCaches {
  emuCodes: EmuCodeCache;
  timetables: TimetableSummaryCache;
}

/** The items of a day's or a page's lines with their mapping members: DailyRecordDays' writer. */
export function recordItemsOf(
  caches: MappingCaches,
): (serviceDay: number, lines: readonly string[]) => Promise<RecordItemJson[]> {
  return (serviceDay, lines) => withMappingMembers(recordItems(serviceDay, lines), caches);
}

/**
 * Fills the items' mapping members from the caches (one query each at most, for entries not
 * cached), and links each item to the last one before it with the same EMU and timetable
 * (emuBefore, timetableBefore). A canonical EMU code never changes once registered, nor does a
 * timetable (its id names its content), so an item's members stay true while the item is kept.
 */
export async function withMappingMembers(
  items: RecordItemJson[],
  caches: MappingCaches,
): Promise<RecordItemJson[]> {
  const timetableIds: number[] = [];
  for (const item of items) if (item.timetableId !== null) timetableIds.push(item.timetableId);
  await caches.emuCodes.load(items.map((item) => item.emuId));
  if (timetableIds.length > 0) await caches.timetables.load(timetableIds);
  const lastOfEmu = new Map<number, number>();
  const lastOfTimetable = new Map<number, number>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    item.emuMember = caches.emuCodes.json(item.emuId) ?? '';
    item.emuBefore = lastOfEmu.get(item.emuId) ?? -1;
    lastOfEmu.set(item.emuId, i);
    if (item.timetableId !== null) {
      item.timetableMember = caches.timetables.json(item.timetableId) ?? '';
      item.timetableBefore = lastOfTimetable.get(item.timetableId) ?? -1;
      lastOfTimetable.set(item.timetableId, i);
    }
  }
  return items;
}

export interface DailyRecordsPageBody {
  serviceDay: number;
  cursor: string;
  limit: number;
  nextCursor: string;
  /** The page's items, prepared by withMappingMembers over a list they were cut from at `from`. */
  items: readonly RecordItemJson[];
  /** Where the items begin in that list (0: the list is the page). */
  from: number;
  /** Their JSON joined by commas (a slice of the day's, when the page is cut from a kept day). */
  itemsJson: string;
}

/**
 * The data of GetDailyRecords (dailyRecordsDataSchema) as JSON text pieces, in order (joined,
 * they are the JSON; the API edge writes them into the envelope's bytes: utf8Concat).
 * emuCodeMappings holds each EMU once, timetableMappings each timetable once and is written only
 * when an item has a timetable, in the order of their first items.
 */
export function dailyRecordsDataJson(body: DailyRecordsPageBody): string[] {
  const { items, from } = body;
  let emuMembers = '';
  let timetableMembers = '';
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.emuBefore < from && item.emuMember !== '') {
      emuMembers = emuMembers === '' ? item.emuMember : `${emuMembers},${item.emuMember}`;
    }
    if (item.timetableBefore < from && item.timetableMember !== '') {
      const member = item.timetableMember;
      timetableMembers = timetableMembers === '' ? member : `${timetableMembers},${member}`;
    }
  }
  const timetableMappings =
    timetableMembers !== '' ? `,"timetableMappings":{${timetableMembers}}` : '';
  return [
    `{"serviceDay":${body.serviceDay},` +
      `"cursor":${JSON.stringify(body.cursor)},"limit":${body.limit},` +
      `"nextCursor":${JSON.stringify(body.nextCursor)},"items":[`,
    body.itemsJson,
    '],"emuCodeMappings":{',
    emuMembers,
    `}${timetableMappings}}`,
  ];
}
