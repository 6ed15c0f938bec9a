import type { Db } from '../../shared/db/db.js';
import type { EmuFormPolicy } from '../emus/emu-forms.js';
import { ingestObservationValues, type ObservationValue } from '../ingest/ingest-values.js';
import { SourceRequestError } from './paced-http.js';
import {
  recordPageTaken,
  type RequestTally,
  type Source,
  type SourceDayCursor,
} from './source-store.js';
import type { V2Client } from './v2-client.js';
import type { V2Page } from './v2-page.js';
import { sightingDay, v2RecordObservation, type SightingDay } from './v2-record-observation.js';

/** What a pull of one day did (PullResult.days). */
export interface DayPull {
  serviceDay: number;
  pages: number;
  /** New observations stored. */
  taken: number;
  /** Records already stored from this source (an earlier pull) or repeated. */
  duplicate: number;
  refused: number;
  /** The first page answered 304: nothing changed upstream since the last complete pull. */
  unchanged: boolean;
  /** The pull of this day began at a cursor left by a pull cut short. */
  resumedAt: string;
}

/** What the days of one pull share. */
export interface V2DaySettings {
  source: Source;
  client: V2Client;
  batchId: number;
  limit: number;
  emuCache: Map<string, number>;
  emuForms: EmuFormPolicy;
  /** The requests and 429s of the pull, counted on the source as its pages are stored. */
  tally: RequestTally;
}

const MAX_PAGES_PER_DAY = 100_000;
/**
 * Records read but not stored yet, at most: past it the next request waits for the store. Ten
 * pages of 200 keep a pull's memory small whatever the upstream's speed.
 */
const MAX_QUEUED_RECORDS = 2_000;

/** `<serviceDay>:<id>` of this day, as the v2 API writes its cursors. */
function checkNextCursor(day: number, current: string, next: string): string | undefined {
  if (next === '') return undefined;
  const m = /^(\d{1,10}):(\d{1,12})$/.exec(next);
  if (!m || Number(m[1]) !== day)
    return `data.nextCursor: expected "" or "${day}:<id>" (got ${JSON.stringify(next.slice(0, 40))})`;
  if (next === current) return `data.nextCursor: repeats the cursor asked for (${next})`;
  return undefined;
}

/** One record of a page as an observation of its train on its unit at its service day. */
function observationOf(
  source: Source,
  d: SightingDay,
  page: V2Page,
  index: number,
): ObservationValue {
  const r = page.items[index]!;
  return v2RecordObservation(
    source,
    d,
    {
      id: r.id,
      serviceDay: r.serviceDay,
      status: r.status,
      trainCode: r.trainCode && `${r.trainCode.prefix}${r.trainCode.number}`,
      emuCode: page.emuCodeMappings?.[String(r.emuId)],
      emuMissing: `emuCode: no emuCodeMappings entry for emuId ${r.emuId}`,
      startOffset:
        r.timetableId !== undefined
          ? page.timetableMappings?.[String(r.timetableId)]?.startOffset
          : undefined,
    },
    // Kept only with a refused record: most are taken, and 12,000 texts a day are no small cost.
    () => JSON.stringify(r),
    index,
  );
}

interface TakenPage {
  page: V2Page;
  /** The day's first page, and the ETag it came with. */
  first: boolean;
  etag: string | null;
}

/**
 * Pulls every page of one day from `state`'s cursor (the first page when the day is new or was
 * pulled to its end). Requests and stores overlap: while the pages read so far are stored, the
 * next one is asked for, and the pages that arrived during a store are stored together in the
 * next (one transaction for their observations, then the day's cursor past the last of them).
 * So the cursor never passes a page that is not stored, and a pull cut anywhere resumes at the
 * first page it did not store; the pages read before a failed request are stored before the
 * failure is thrown (a SourceRequestError for the upstream's doing, anything else as it is).
 */
export async function pullV2Day(
  db: Db,
  s: V2DaySettings,
  day: number,
  state: SourceDayCursor | null,
  dayPull: DayPull,
  touched: Set<number>,
): Promise<void> {
  const d = sightingDay(day);
  const file = `source:${s.source.name}/${d.ymd}`;
  // A day not yet pulled to its end holds few records stored already: COPY them straight in,
  // until a store meets one (then the safe path, as an ingested file does).
  let optimistic = !(state?.completed ?? false);
  const queue: TakenPage[] = [];
  let queued = 0;
  let storing: Promise<void> | undefined;
  let storeFailure: { err: unknown } | undefined;

  const store = async (pages: TakenPage[]) => {
    const values = pages.flatMap((t) =>
      t.page.items.map((_, i) => observationOf(s.source, d, t.page, i)),
    );
    // The cursor's commit below is synchronous, so it flushes this one with it.
    const w = await ingestObservationValues(db, s.batchId, file, values, {
      emuCache: s.emuCache,
      emuForms: s.emuForms,
      optimistic,
      commitAsync: true,
    });
    optimistic &&= !w.sawStored;
    await recordPageTaken(
      db,
      s.source.id,
      day,
      {
        nextCursor: pages.at(-1)!.page.nextCursor,
        first: pages[0]!.first,
        etag: pages[0]!.etag,
        taken: w.accepted,
        refused: w.rejected,
        pages: pages.length,
      },
      // The requests made since the last store, in the same statement as its lines.
      s.tally.take(),
    );
    for (const x of w.serviceDays) touched.add(x);
    dayPull.pages += pages.length;
    dayPull.taken += w.accepted;
    dayPull.duplicate += w.duplicate;
    dayPull.refused += w.rejected;
  };
  const drain = async () => {
    while (queue.length > 0) {
      const pages = queue.splice(0);
      queued = 0;
      await store(pages);
    }
  };
  const storeQueued = () => {
    if (storing !== undefined || storeFailure !== undefined) return;
    storing = drain()
      .catch((err: unknown) => {
        storeFailure = { err };
      })
      .finally(() => {
        storing = undefined;
      });
  };

  let fetchFailure: { err: unknown } | undefined;
  try {
    let cursor = state && !state.completed ? state.nextCursor : '';
    const etag = cursor === '' && state?.completed ? (state.firstPageEtag ?? undefined) : undefined;
    let next = s.client.page(d.ymd, s.limit, cursor, etag);
    for (let read = 1; ; read++) {
      const answer = await next;
      if (answer.kind === 'unchanged') {
        dayPull.unchanged = true;
        break;
      }
      const { page } = answer;
      const url = s.client.pageUrl(d.ymd, s.limit, cursor);
      if (page.serviceDay !== day)
        throw new SourceRequestError(url, `data.serviceDay: ${page.serviceDay}, not ${day}`);
      const bad = checkNextCursor(day, cursor, page.nextCursor);
      if (bad !== undefined) throw new SourceRequestError(url, bad);
      queue.push({ page, first: cursor === '', etag: cursor === '' ? answer.etag : null });
      queued += page.items.length;
      storeQueued();
      if (page.nextCursor === '') break;
      if (read >= MAX_PAGES_PER_DAY)
        throw new SourceRequestError(url, `more than ${MAX_PAGES_PER_DAY} pages in one day`);
      cursor = page.nextCursor;
      next = s.client.page(d.ymd, s.limit, cursor);
      // Its failure is met when it is awaited; until then (a store failing first) it is handled.
      next.catch(() => {});
      while (queued >= MAX_QUEUED_RECORDS && storing !== undefined) await storing;
      if (storeFailure !== undefined) break;
    }
  } catch (err) {
    fetchFailure = { err };
  }
  // What was read is stored before the pull says why it stopped.
  while (storing !== undefined) await storing;
  storeQueued();
  while (storing !== undefined) await storing;
  // A store's failure first: the pages after it were not stored, whatever the upstream did.
  if (storeFailure !== undefined) throw storeFailure.err;
  if (fetchFailure !== undefined) throw fetchFailure.err;
}
