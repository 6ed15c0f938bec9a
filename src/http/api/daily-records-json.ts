import { splitTrainCode } from '../../domain/trains/train-code.js';
import { flatString } from './flat-string.js';
import { parseRecordLine } from './daily-records-page.js';
import type { EmuCodeCache } from './emu-code-cache.js';
import type { TimetableSummaryCache } from './timetable-summary-cache.js';

/**
 * The success body of GetDailyRecords, written as JSON text directly: the API's hot path. The
 * generic serializer (fast-json-stringify over the zod schema) needs objects for 200 items and an
 * integer-keyed emuCodeMappings object, then writes a string of ~2,000 pieces. Here each item's
 * JSON is made once per record and version of its day (DailyRecordDays keeps the day's items),
 * and the EMUs' mapping members come from the EMU code cache: a page joins ready-made pieces. The output is the schema's
 * (dailyRecordsDataSchema): the tests parse it with the schema and compare it with the generic
 * serializer's.
 */
export interface RecordItemJson {
  id: number;
  emuId: number;
  timetableId: number | null;
  /** The DailyRecordItem as JSON. */
  json: string;
}

// `,"trainCode":{...}` per train code ("" when a stored code does not parse).
const trainCodeJson = new Map<string, string>();

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
    if (trainCodeJson.size >= 100_000) trainCodeJson.clear();
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
  };
}

/** The items of a day's lines (dailyRecordLines), in their order. */
export function recordItems(serviceDay: number, lines: readonly string[]): RecordItemJson[] {
  return lines.map((line) => itemOf(serviceDay, line));
}

export interface DailyRecordsPageBody {
  serviceDay: number;
  cursor: string;
  limit: number;
  nextCursor: string;
  items: readonly RecordItemJson[];
}

/**
 * The data of GetDailyRecords (dailyRecordsDataSchema) as JSON; the API edge puts it in the
 * envelope (sendDataJson). The items' EMUs and timetables must be loaded in the caches;
 * timetableMappings is written only when an item has a timetable.
 */
export function dailyRecordsDataJson(
  body: DailyRecordsPageBody,
  caches: { emuCodes: EmuCodeCache; timetables: TimetableSummaryCache },
): string {
  const { items } = body;
  const parts = new Array<string>(items.length);
  const seenEmus = new Set<number>();
  const emuMembers: string[] = [];
  let seenTimetables: Set<number> | undefined;
  const timetableMembers: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    parts[i] = item.json;
    if (!seenEmus.has(item.emuId)) {
      seenEmus.add(item.emuId);
      const member = caches.emuCodes.json(item.emuId);
      if (member !== undefined) emuMembers.push(member);
    }
    if (item.timetableId !== null && !(seenTimetables ??= new Set()).has(item.timetableId)) {
      seenTimetables.add(item.timetableId);
      const member = caches.timetables.json(item.timetableId);
      if (member !== undefined) timetableMembers.push(member);
    }
  }
  const timetableMappings =
    timetableMembers.length > 0 ? `,"timetableMappings":{${timetableMembers.join(',')}}` : '';
  return (
    `{"serviceDay":${body.serviceDay},` +
    `"cursor":${JSON.stringify(body.cursor)},"limit":${body.limit},` +
    `"nextCursor":${JSON.stringify(body.nextCursor)},"items":[${parts.join(',')}],` +
    `"emuCodeMappings":{${emuMembers.join(',')}}${timetableMappings}}`
  );
}
