import type { EmuCodeCache } from './emu-code-cache.js';
import type { TimetableSummaryCache } from './timetable-summary-cache.js';

/** What a listing's mappings are made from: its items' EMUs and timetables. */
export interface MappedRecord {
  emuId: number;
  timetableId: number | null;
}

export interface ListingMappings {
  emuCodeMappings: Record<string, string>;
  /** Absent when no item has a timetable (as in GetDailyRecords). */
  timetableMappings?: Record<
    string,
    { startStation: string; endStation: string; startOffset: number; endOffset: number }
  >;
}

/**
 * emuCodeMappings and timetableMappings of a listing, from the app's caches (one query each at
 * most, for entries not cached yet). `alwaysEmuIds` are mapped even when no item names them
 * (an EMU history maps its EMU on an empty page too).
 */
export async function listingMappings(
  caches: { emuCodes: EmuCodeCache; timetables: TimetableSummaryCache },
  records: readonly MappedRecord[],
  alwaysEmuIds: readonly number[] = [],
): Promise<ListingMappings> {
  const emuIds = [...new Set([...alwaysEmuIds, ...records.map((r) => r.emuId)])];
  const timetableIds = [
    ...new Set(records.flatMap((r) => (r.timetableId === null ? [] : [r.timetableId]))),
  ];
  const [emuCodeMappings] = await Promise.all([
    caches.emuCodes.mappings(emuIds),
    timetableIds.length > 0 ? caches.timetables.load(timetableIds) : undefined,
  ]);
  if (timetableIds.length === 0) return { emuCodeMappings };
  // The cache keeps each summary as its JSON member `"<id>":{...}`, made for the daily records'
  // writer; a page of at most a few hundred members is parsed back in microseconds.
  const members = timetableIds.flatMap((id) => {
    const member = caches.timetables.json(id);
    return member === undefined ? [] : [member];
  });
  return {
    emuCodeMappings,
    timetableMappings: JSON.parse(`{${members.join(',')}}`) as ListingMappings['timetableMappings'],
  };
}
