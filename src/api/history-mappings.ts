import type { EmuCodeCache } from './emu-code-cache.js';
import type { TimetableSummaryCache } from './timetable-summary-cache.js';

/** What a listing's mappings are made from: its items' EMUs and timetables. */
export interface MappedRecord {
  emuId: number;
  timetableId: number | null;
}

interface TimetableSummary {
  startStation: string;
  endStation: string;
  startOffset: number;
  endOffset: number;
}

export interface ListingMappings {
  emuCodeMappings: Record<string, string>;
  /** Absent when no item has a timetable (as in GetDailyRecords). */
  timetableMappings?: Record<string, TimetableSummary>;
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
  const emuIds = new Set(alwaysEmuIds);
  const timetableIds = new Set<number>();
  for (const r of records) {
    emuIds.add(r.emuId);
    if (r.timetableId !== null) timetableIds.add(r.timetableId);
  }
  const emus = [...emuIds];
  const timetables = [...timetableIds];
  await Promise.all([
    caches.emuCodes.load(emus),
    timetables.length > 0 ? caches.timetables.load(timetables) : undefined,
  ]);
  const emuCodeMappings: Record<string, string> = {};
  for (const id of emus) {
    const code = caches.emuCodes.code(id);
    if (code !== undefined) emuCodeMappings[id] = code;
  }
  if (timetables.length === 0) return { emuCodeMappings };
  const timetableMappings: Record<string, TimetableSummary> = {};
  for (const id of timetables) {
    const summary = summaryOf(caches.timetables, id);
    if (summary) timetableMappings[id] = summary;
  }
  return { emuCodeMappings, timetableMappings };
}

// The summary cache keeps each summary as its JSON member `"<id>":{...}`, made for the daily
// records' writer; here they are wanted as objects, parsed once per timetable (a timetable id
// stands for one content forever, so an entry never goes stale), per cache (per app: one db).
const summariesByCache = new WeakMap<TimetableSummaryCache, Map<number, TimetableSummary>>();
const SUMMARIES_LIMIT = 100_000;

function summaryOf(cache: TimetableSummaryCache, id: number): TimetableSummary | undefined {
  let summaries = summariesByCache.get(cache);
  if (!summaries) summariesByCache.set(cache, (summaries = new Map()));
  let summary = summaries.get(id);
  if (summary === undefined) {
    const member = cache.json(id);
    if (member === undefined) return undefined;
    summary = (JSON.parse(`{${member}}`) as Record<string, TimetableSummary>)[id]!;
    if (summaries.size >= SUMMARIES_LIMIT) summaries.clear();
    summaries.set(id, summary);
  }
  return summary;
}
