import type { ApiServices } from '../../app-context.js';
import type { RecordItemJson } from '../../api/daily-records-json.js';
import { dataVersionTag, recordsVersion } from '../../../shared/cache/data-versions.js';

/*
 * A service day's records as the pages show them, read through the API's own kept days
 * (services.dailyRecords, the reader of GetDailyRecords): one read of the whole day per version
 * serves both the API's pages and these.
 */

/** One record: what GetDailyRecords' item says, with the unit's code. */
export interface DayRecord {
  id: number;
  trainCode: string;
  emuId: number;
  /** The unit's canonical code ('' when the register has none). */
  emuCode: string;
  status: number;
  timetableId: number | null;
}

/** A day's whole list asked for at once (a day holds about 12,000 records). */
const WHOLE_DAY = 1_000_000;

/** The records version of a day as the page cache names it (`records:<day>@<n>`). */
export function recordsVersionText(serviceDay: number, version: number): string {
  return `${dataVersionTag(recordsVersion(serviceDay))}@${version}`;
}

/** The number in a page cache version text (`name:key@n`). */
export function versionNumberOf(version: string): number {
  return Number(version.slice(version.lastIndexOf('@') + 1));
}

interface ItemJson {
  emuId: number;
  status: number;
  trainCode?: { prefix: string; number: number };
}

function recordOf(services: ApiServices, item: RecordItemJson): DayRecord {
  const parsed = JSON.parse(item.json) as ItemJson;
  const code = parsed.trainCode ? `${parsed.trainCode.prefix}${parsed.trainCode.number}` : '';
  return {
    id: item.id,
    trainCode: code,
    emuId: item.emuId,
    emuCode: services.emuCodes.code(item.emuId) ?? '',
    status: parsed.status,
    timetableId: item.timetableId,
  };
}

/**
 * Every record of `serviceDay` at `version` (recordsVersionText: the same text GetDailyRecords
 * keeps the day under), highest id first as the API lists them.
 */
export async function dayRecords(
  services: ApiServices,
  serviceDay: number,
  version: string,
): Promise<DayRecord[]> {
  await services.dailyRecords.read(serviceDay, version);
  const { items } = await services.dailyRecords.page(serviceDay, version, WHOLE_DAY);
  return items.map((item) => recordOf(services, item));
}

/** The origin and terminus of a record's timetable (loaded by the day's read), if any. */
export function routeOfTimetable(
  services: ApiServices,
  timetableId: number | null,
): { startStation: string; endStation: string } | undefined {
  if (timetableId === null) return undefined;
  const member = services.timetables.json(timetableId);
  if (member === undefined) return undefined;
  const parsed = JSON.parse(`{${member}}`) as Record<
    string,
    { startStation: string; endStation: string }
  >;
  return parsed[String(timetableId)];
}
