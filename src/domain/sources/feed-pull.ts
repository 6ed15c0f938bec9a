import type { Db, Queryable } from '../../shared/db/db.js';
import { midnightOfServiceDay } from '../../shared/time/service-day.js';
import { restoreForSource, retractForSource } from '../corrections/follow-upstream.js';
import type { EmuFormPolicy } from '../emus/emu-forms.js';
import { ingestObservationValues, openIngestBatch } from '../ingest/ingest-values.js';
import { SourceRequestError, type PullClock } from './paced-http.js';
import { closePull, type PullCounts } from './pull-requests.js';
import { recordLinesTaken, RequestTally, type Source } from './source-store.js';
import { V2Client } from './v2-client.js';
import type { V2Change, V2ChangesPage } from './v2-page.js';
import { sightingDay, v2RecordObservation } from './v2-record-observation.js';
import type { HttpGet } from '../../shared/io/http-get.js';

export interface FeedPullSettings {
  baseUrl: string;
  apiKey: string | undefined;
  clock: PullClock;
  get: HttpGet;
  timeoutMs: number;
  maxBytes: number;
  maxWaitSeconds: number;
  userAgent: string;
  emuForms: EmuFormPolicy;
  /** Changes asked for per page. */
  pageLimit: number;
}

export interface FeedPull extends PullCounts {
  batchId: number;
  /** The cursor the pull began at ("" = the first change the upstream keeps). */
  from: string;
  /** Where it stands now (stored). */
  cursor: string;
  pages: number;
  changes: number;
  /** Upstream records removed whose sightings here were retracted. */
  retracted: number;
  /** Upstream records back again whose retractions here were taken back. */
  restored: number;
  /** Why the pull stopped short (one line naming the URL), if it did. */
  failure?: string;
}

/** Pages one pull reads at most: a feed that never ends is an upstream's fault. */
const MAX_PAGES = 100_000;

export async function readFeedCursor(db: Queryable, sourceId: number): Promise<string> {
  const r = await db.query<{ cursor: string }>(
    'SELECT cursor FROM source_feed_cursors WHERE source_id = $1',
    [sourceId],
  );
  return r.rows[0]?.cursor ?? '';
}

/** The stored cursor, its row locked until the transaction ends (made if missing). */
async function lockFeedCursor(tx: Queryable, sourceId: number): Promise<string> {
  await tx.query(
    'INSERT INTO source_feed_cursors (source_id) VALUES ($1) ON CONFLICT (source_id) DO NOTHING',
    [sourceId],
  );
  const r = await tx.query<{ cursor: string }>(
    'SELECT cursor FROM source_feed_cursors WHERE source_id = $1 FOR UPDATE',
    [sourceId],
  );
  return r.rows[0]!.cursor;
}

async function storeFeedCursor(
  tx: Queryable,
  sourceId: number,
  cursor: string,
  changes: number,
): Promise<void> {
  await tx.query(
    `INSERT INTO source_feed_cursors AS c (source_id, cursor, pages, changes)
     VALUES ($1, $2, 1, $3)
     ON CONFLICT (source_id) DO UPDATE
        SET cursor = EXCLUDED.cursor, pages = c.pages + 1, changes = c.changes + $3,
            updated_at = now()`,
    [sourceId, cursor, changes],
  );
}

/**
 * The domain's handle bound to one open transaction: what the ingest path opens as its own
 * transaction joins this one, so a page's sightings, corrections and cursor commit together.
 */
function joined(db: Db, tx: Queryable): Db {
  return {
    kind: db.kind,
    query: (sql, params) => tx.query(sql, params),
    copyFrom: (table, columns, data) => tx.copyFrom(table, columns, data),
    transaction: (fn) => fn(tx),
    copyTo: () => {
      throw new Error('copyTo inside a feed page transaction');
    },
    session: (fn) => fn(tx),
    close: async () => {},
  };
}

/** The last change of each record in the page: what the page leaves it as. */
function lastChanges(page: V2ChangesPage): V2Change[] {
  const last = new Map<number, V2Change>();
  for (const c of page.items) {
    last.delete(c.id);
    last.set(c.id, c);
  }
  return [...last.values()];
}

/**
 * Follows a `v2-feed` source's change feed (GET {base}/api/v2/records/changes) from its stored
 * cursor to its end. Per page, in one transaction with the cursor's move: each record added or
 * changed upstream is an observation of this source keyed by its id (as a `v2` pull stores it;
 * a repeat adds nothing) and takes back the source's own retraction of it if there is one; each
 * record removed upstream (a retraction, a merge, a rebuild that dropped it) retracts the
 * sightings it brought here, by a correction of the source. A pull cut short resumes at the
 * first page it did not store, with nothing stored twice.
 */
export async function pullFeed(db: Db, source: Source, s: FeedPullSettings): Promise<FeedPull> {
  const client = new V2Client({ ...s, rate: source.rate, maxRefusals: 20 });
  const tally = new RequestTally(client);
  const batchId = await openIngestBatch(db, `source:${source.name}`);
  const from = await readFeedCursor(db, source.id);
  const file = `source:${source.name}/changes`;
  const result: FeedPull = {
    batchId,
    from,
    cursor: from,
    pages: 0,
    changes: 0,
    retracted: 0,
    restored: 0,
    requests: 0,
    refusals: 0,
    waitedMs: 0,
    taken: 0,
    duplicate: 0,
    refused: 0,
    serviceDays: [],
  };
  const touched = new Set<number>();
  const emuCache = new Map<string, number>();
  try {
    for (;;) {
      const cursor = result.cursor;
      const url = client.changesUrl(s.pageLimit, cursor);
      const page = await client.changes(s.pageLimit, cursor);
      if (page.items.length > 0 && page.nextCursor === cursor)
        throw new SourceRequestError(
          url,
          `data.nextCursor: repeats the cursor asked for (${cursor})`,
        );
      const last = lastChanges(page);
      const kept = last.filter((c) => c.record !== null);
      const values = kept.map((c, i) =>
        v2RecordObservation(
          source,
          sightingDay(c.serviceDay),
          {
            id: c.record!.id,
            serviceDay: c.record!.serviceDay,
            status: c.record!.status,
            trainCode: c.record!.trainCode,
            emuCode: c.record!.emuCode === '' ? undefined : c.record!.emuCode,
            emuMissing: 'emuCode: empty',
            startOffset:
              c.record!.firstObservedAt === undefined
                ? undefined
                : c.record!.firstObservedAt - midnightOfServiceDay(c.serviceDay),
          },
          () => JSON.stringify(c.record),
          i,
        ),
      );
      const removed = last.filter((c) => c.record === null);
      const at = (c: V2Change) => `${c.cause} upstream, feed cursor ${c.cursor}`;
      const byRef = new Map(last.map((c) => [String(c.id), c]));
      const applied = await db.transaction(async (tx) => {
        // Two pulls of one source in two processes (cron without the worker's queue) must not
        // apply one page twice: the page is applied only from the cursor still stored.
        if ((await lockFeedCursor(tx, source.id)) !== cursor) return null;
        const w = await ingestObservationValues(joined(db, tx), batchId, file, values, {
          emuCache,
          emuForms: s.emuForms,
        });
        const restored = await restoreForSource(
          tx,
          source.name,
          kept.map((c) => String(c.id)),
          (ref) => `${byRef.get(ref)!.kind} again (${at(byRef.get(ref)!)})`,
        );
        const retracted = await retractForSource(
          tx,
          source.name,
          removed.map((c) => String(c.id)),
          (ref) => `removed upstream (${at(byRef.get(ref)!)})`,
        );
        await storeFeedCursor(tx, source.id, page.nextCursor, page.items.length);
        await recordLinesTaken(tx, source.id, w.accepted, w.rejected, tally.take());
        return { w, restored, retracted };
      });
      if (applied === null)
        throw new SourceRequestError(
          url,
          'another pull of this source moved its cursor meanwhile; this one stops',
        );
      const { w, restored, retracted } = applied;
      for (const d of [...w.serviceDays, ...restored.serviceDays, ...retracted.serviceDays])
        touched.add(d);
      result.cursor = page.nextCursor;
      result.pages++;
      result.changes += page.items.length;
      result.taken += w.accepted;
      result.duplicate += w.duplicate;
      result.refused += w.rejected;
      result.retracted += retracted.corrections;
      result.restored += restored.corrections;
      if (!page.more || page.items.length === 0) break;
      if (result.pages >= MAX_PAGES)
        throw new SourceRequestError(url, `more than ${MAX_PAGES} pages in one pull`);
    }
  } catch (err) {
    if (!(err instanceof SourceRequestError)) throw err;
    result.failure = err.message;
  } finally {
    await closePull(db, batchId, result, client, touched, { sourceId: source.id, tally });
  }
  return result;
}
