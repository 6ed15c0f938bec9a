import type { Db } from '../../shared/db/db.js';
import { ChunkBuilder } from '../ingest/observation-copy-rows.js';
import { writeObservationChunk } from '../ingest/write-observation-chunk.js';
import { SourceRequestError } from './paced-http.js';
import {
  recordPageTaken,
  type RequestTally,
  type Source,
  type SourceDayCursor,
} from './source-store.js';
import type { V2Client } from './v2-client.js';
import type { V2PageRows } from './v2-page-rows.js';
import { sightingDay } from './v2-record-observation.js';

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
  /** Pages into COPY rows, under the pull's EMU form policy. */
  rows: V2PageRows;
  /** The requests and 429s of the pull, counted on the source as its pages are stored. */
  tally: RequestTally;
}

const MAX_PAGES_PER_DAY = 100_000;
/**
 * Records read but not stored yet, at most: past it the next request waits for the store. The
 * rows of forty pages of 200 (about 2 MB) keep a pull's memory small whatever the upstream's
 * speed, and leave room for the first stores of a day, which register most of its units and
 * are slower than the pages arrive: a quarter of this made the reading wait on them for a
 * third of the pull.
 */
const MAX_QUEUED_RECORDS = 8_000;

/** The first size of a buffer of rows (it grows as needed): about ten pages of 200. */
const ROWS_BYTES = 256 << 10;

/** `<serviceDay>:<id>` of this day, as the v2 API writes its cursors. */
function checkNextCursor(day: number, current: string, next: string): string | undefined {
  if (next === '') return undefined;
  const m = /^(\d{1,10}):(\d{1,12})$/.exec(next);
  if (!m || Number(m[1]) !== day)
    return `data.nextCursor: expected "" or "${day}:<id>" (got ${JSON.stringify(next.slice(0, 40))})`;
  if (next === current) return `data.nextCursor: repeats the cursor asked for (${next})`;
  return undefined;
}

/** Pages read and not stored yet: their rows, made as each arrived, and where they end. */
interface TakenPages {
  chunk: ChunkBuilder;
  pages: number;
  records: number;
  /** The first of them is the day's first page; and the ETag it came with. */
  first: boolean;
  etag: string | null;
  nextCursor: string;
}

/**
 * Pulls every page of one day from `state`'s cursor (the first page when the day is new or was
 * pulled to its end). Requests and stores overlap: while the pages read so far are stored, the
 * next one is asked for, and the pages that arrived during a store are stored together in the
 * next (one transaction for their observations and the day's cursor past the last of them).
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
  let taken: TakenPages | undefined;
  // The rows' buffers, reused once their store is done: at most two are in use (one storing,
  // one filling), and a new one for every store was most of the pull's garbage.
  const buffers: ArrayBuffer[] = [];
  let storing: Promise<void> | undefined;
  let storeFailure: { err: unknown } | undefined;

  const store = async (t: TakenPages) => {
    const chunk = t.chunk.finish();
    // The requests made since the last store, counted with its lines (given back if it fails).
    const asked = s.tally.take();
    let w;
    try {
      // The day's cursor moves past these pages in the transaction that stores them: both or
      // neither. Its commit does not wait for the WAL; the pull's last statement
      // (closePull) commits synchronously, which flushes every commit before it, and a crash
      // before that loses stores whole and in order, never a cursor without its rows.
      w = await writeObservationChunk(db, s.batchId, file, chunk, s.emuCache, {
        optimistic,
        commitAsync: true,
        alsoInTransaction: (tx, accepted) =>
          recordPageTaken(
            tx,
            s.source.id,
            day,
            {
              nextCursor: t.nextCursor,
              first: t.first,
              etag: t.etag,
              taken: accepted,
              refused: chunk.rejects.length,
              pages: t.pages,
            },
            asked,
          ),
      });
    } catch (err) {
      s.tally.giveBack(asked);
      throw err;
    }
    optimistic &&= !w.sawStored;
    buffers.push(chunk.rows.bytes.buffer as ArrayBuffer);
    for (const x of w.days.keys()) touched.add(x);
    dayPull.pages += t.pages;
    dayPull.taken += w.accepted;
    dayPull.duplicate += chunk.valid - w.accepted;
    dayPull.refused += chunk.rejects.length;
  };
  const drain = async () => {
    while (taken !== undefined) {
      const t = taken;
      taken = undefined;
      await store(t);
    }
  };
  const storeTaken = () => {
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
      const last = page.nextCursor === '';
      const tooMany = !last && read >= MAX_PAGES_PER_DAY;
      if (!last && !tooMany) {
        // Asked for before this page's rows are made: the upstream works while this one does.
        next = s.client.page(d.ymd, s.limit, page.nextCursor);
        // Its failure is met when it is awaited; until then (a store failing first) it is handled.
        next.catch(() => {});
      }
      // The page's rows are made as it arrives: the parsed page is garbage before any wait.
      taken ??= {
        chunk: new ChunkBuilder(s.batchId, file, s.emuCache, buffers.pop() ?? ROWS_BYTES),
        pages: 0,
        records: 0,
        first: cursor === '',
        etag: cursor === '' ? answer.etag : null,
        nextCursor: '',
      };
      s.rows.addPage(taken.chunk, d, page);
      taken.pages++;
      taken.records += page.items.length;
      taken.nextCursor = page.nextCursor;
      storeTaken();
      if (last) break;
      if (tooMany)
        throw new SourceRequestError(url, `more than ${MAX_PAGES_PER_DAY} pages in one day`);
      cursor = page.nextCursor;
      while ((taken?.records ?? 0) >= MAX_QUEUED_RECORDS && storing !== undefined) await storing;
      if (storeFailure !== undefined) break;
    }
  } catch (err) {
    fetchFailure = { err };
  }
  // What was read is stored before the pull says why it stopped.
  while (storing !== undefined) await storing;
  storeTaken();
  while (storing !== undefined) await storing;
  // A store's failure first: the pages after it were not stored, whatever the upstream did.
  if (storeFailure !== undefined) throw storeFailure.err;
  if (fetchFailure !== undefined) throw fetchFailure.err;
}
