import type { Queryable } from '../../shared/db/db.js';
import { toDate } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { markDaysStale } from '../records/stale-days.js';
import type { SourceKind, SourceSettings } from './source-config.js';

/** A source as stored (migrations 032, 033, 035): its settings and how its pulls went. */
export interface Source extends SourceSettings {
  id: number;
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  linesTaken: number;
  linesRefused: number;
  /** Requests sent to it, 429s it answered, and pulls that stopped short, since it was added. */
  requests: number;
  refusals: number;
  errors: number;
  createdAt: Date;
}

/** Seconds since a source's last pull that completed; null when none ever did. */
export function sourceLagSeconds(s: Pick<Source, 'lastSuccessAt'>, nowMs: number): number | null {
  if (s.lastSuccessAt === null) return null;
  return Math.max(0, Math.floor((nowMs - s.lastSuccessAt.getTime()) / 1000));
}

/** Requests and 429s of a pull not yet added to its source's counters. */
export interface RequestsDelta {
  requests: number;
  refusals: number;
}

/**
 * Counts a client's requests in deltas: each page stored adds what was asked since the last one
 * (in the same statement as its lines), so a pull cut short has counted what it asked.
 */
export class RequestTally {
  private requests = 0;
  private refusals = 0;
  constructor(private readonly client: { readonly requests: number; readonly refusals: number }) {}

  take(): RequestsDelta {
    const d = {
      requests: this.client.requests - this.requests,
      refusals: this.client.refusals - this.refusals,
    };
    this.requests = this.client.requests;
    this.refusals = this.client.refusals;
    return d;
  }

  /** What take() gave and was not recorded after all: the next take() gives it again. */
  giveBack(d: RequestsDelta): void {
    this.requests -= d.requests;
    this.refusals -= d.refusals;
  }
}

/** Where a source's pull of one service day stands (source_day_cursors). */
export interface SourceDayCursor {
  serviceDay: number;
  /** The cursor of the next page to ask for; "" = from the first page. */
  nextCursor: string;
  /** The day was pulled to its last page. */
  completed: boolean;
  /** The first page's ETag at the last completed pull (for If-None-Match). */
  firstPageEtag: string | null;
  pages: number;
  linesTaken: number;
  linesRefused: number;
}

export class SourceNotFoundError extends EmutrackError {
  constructor(readonly sourceName: string) {
    super('source_not_found', `no source named ${JSON.stringify(sourceName)}`);
  }
}

export class SourceExistsError extends EmutrackError {
  constructor(readonly sourceName: string) {
    super('source_exists', `a source named ${JSON.stringify(sourceName)} exists already`);
  }
}

interface SourceRow {
  id: string | number;
  name: string;
  kind: SourceKind;
  base_url: string;
  api_key_env: string | null;
  schedule: string | null;
  rate: number;
  trust: number;
  trains: string[] | null;
  last_success_at: Date | string | null;
  last_error: string | null;
  last_error_at: Date | string | null;
  lines_taken: string | number;
  lines_refused: string | number;
  requests: string | number;
  refusals: string | number;
  errors: string | number;
  created_at: Date | string;
}

const COLUMNS = `id, name, kind, base_url, api_key_env, schedule, rate, trust, trains, last_success_at,
  last_error, last_error_at, lines_taken, lines_refused, requests, refusals, errors, created_at`;

function sourceOf(r: SourceRow): Source {
  return {
    id: Number(r.id),
    name: r.name,
    kind: r.kind,
    baseUrl: r.base_url,
    apiKeyEnv: r.api_key_env,
    schedule: r.schedule,
    rate: Number(r.rate),
    trust: Number(r.trust),
    trains: r.trains,
    lastSuccessAt: r.last_success_at === null ? null : toDate(r.last_success_at),
    lastError: r.last_error,
    lastErrorAt: r.last_error_at === null ? null : toDate(r.last_error_at),
    linesTaken: Number(r.lines_taken),
    linesRefused: Number(r.lines_refused),
    requests: Number(r.requests),
    refusals: Number(r.refusals),
    errors: Number(r.errors),
    createdAt: toDate(r.created_at),
  };
}

export async function addSource(db: Queryable, s: SourceSettings): Promise<Source> {
  const r = await db.query<SourceRow>(
    `INSERT INTO sources (name, kind, base_url, api_key_env, schedule, rate, trust, trains)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (name) DO NOTHING
     RETURNING ${COLUMNS}`,
    [s.name, s.kind, s.baseUrl, s.apiKeyEnv, s.schedule, s.rate, s.trust, s.trains],
  );
  if (!r.rows[0]) throw new SourceExistsError(s.name);
  if (s.trust !== 1) await markTrustDaysStale(db, s.name);
  return sourceOf(r.rows[0]);
}

/**
 * A source's trust weighs its sightings in the day build (build-daily-records.ts): when a name
 * that already brought sightings changes weight (added again with another trust, or removed
 * while weighing other than 1, so back to 1), the built days of those sightings, and the days
 * before them (a sighting after midnight may count for the day before), are stale. Their
 * rebuild sees the new weight in its inputs. A source of trust 1 added or removed changes no
 * weight, so nothing is read then.
 */
async function markTrustDaysStale(db: Queryable, name: string): Promise<void> {
  const r = await db.query<{ d: number }>(
    `SELECT DISTINCT c.d FROM (SELECT DISTINCT service_day FROM observations WHERE source = $1) o
       CROSS JOIN LATERAL (VALUES (o.service_day), (o.service_day - 1)) AS c(d)
      WHERE EXISTS (SELECT 1 FROM daily_record_builds b WHERE b.service_day = c.d)
      ORDER BY 1`,
    [name],
  );
  await markDaysStale(
    db,
    r.rows.map((x) => x.d),
    'correction',
  );
}

export async function listSources(db: Queryable): Promise<Source[]> {
  const r = await db.query<SourceRow>(`SELECT ${COLUMNS} FROM sources ORDER BY name`);
  return r.rows.map(sourceOf);
}

export async function getSource(db: Queryable, name: string): Promise<Source> {
  const r = await db.query<SourceRow>(`SELECT ${COLUMNS} FROM sources WHERE name = $1`, [name]);
  if (!r.rows[0]) throw new SourceNotFoundError(name);
  return sourceOf(r.rows[0]);
}

/** Removes a source and its cursors; the sightings it brought stay (they are observations). */
export async function removeSource(db: Queryable, name: string): Promise<void> {
  const r = await db.query<{ trust: number }>(
    `DELETE FROM sources WHERE name = $1 RETURNING trust`,
    [name],
  );
  if (!r.rows[0]) throw new SourceNotFoundError(name);
  if (Number(r.rows[0].trust) !== 1) await markTrustDaysStale(db, name);
}

export async function readDayCursor(
  db: Queryable,
  sourceId: number,
  serviceDay: number,
): Promise<SourceDayCursor | null> {
  const r = await db.query<{
    next_cursor: string;
    completed: boolean;
    first_page_etag: string | null;
    pages: number;
    lines_taken: number;
    lines_refused: number;
  }>(
    `SELECT next_cursor, completed, first_page_etag, pages, lines_taken, lines_refused
       FROM source_day_cursors WHERE source_id = $1 AND service_day = $2`,
    [sourceId, serviceDay],
  );
  const row = r.rows[0];
  if (!row) return null;
  return {
    serviceDay,
    nextCursor: row.next_cursor,
    completed: row.completed,
    firstPageEtag: row.first_page_etag,
    pages: row.pages,
    linesTaken: row.lines_taken,
    linesRefused: row.lines_refused,
  };
}

/**
 * Records one page (or several in a row) taken: the day's cursor moves to the next page (or the
 * day is complete), and the pages' lines are added to the day's and the source's counters, in one transaction.
 * `firstPageEtag` is set when the page was the day's first (a later pull asks with it).
 */
export async function recordPageTaken(
  db: Queryable,
  sourceId: number,
  serviceDay: number,
  page: {
    nextCursor: string;
    first: boolean;
    etag: string | null;
    taken: number;
    refused: number;
    /** Pages this stands for (stored together). Default 1. */
    pages?: number;
  },
  asked: RequestsDelta = { requests: 0, refusals: 0 },
): Promise<void> {
  await db.query(
    `WITH day AS (
       INSERT INTO source_day_cursors AS c
              (source_id, service_day, next_cursor, completed, first_page_etag, pages,
               lines_taken, lines_refused)
       VALUES ($1, $2, $3, $3 = '', CASE WHEN $4 THEN $5 END, $8, $6, $7)
       ON CONFLICT (source_id, service_day) DO UPDATE
          SET next_cursor = EXCLUDED.next_cursor,
              completed = EXCLUDED.completed,
              -- The ETag of a first page stands for the day only once the pull reached its end.
              first_page_etag = CASE WHEN $4 THEN $5 ELSE c.first_page_etag END,
              pages = c.pages + $8,
              lines_taken = c.lines_taken + $6,
              lines_refused = c.lines_refused + $7,
              updated_at = now()
       RETURNING 1
     )
     UPDATE sources SET lines_taken = lines_taken + $6, lines_refused = lines_refused + $7,
                        requests = requests + $9, refusals = refusals + $10
      WHERE id = $1 AND EXISTS (SELECT 1 FROM day)`,
    [
      sourceId,
      serviceDay,
      page.nextCursor,
      page.first,
      page.etag,
      page.taken,
      page.refused,
      page.pages ?? 1,
      asked.requests,
      asked.refusals,
    ],
  );
}

/** Lines taken and refused by a kind without day cursors, added to the source's counters. */
export async function recordLinesTaken(
  db: Queryable,
  sourceId: number,
  taken: number,
  refused: number,
  asked: RequestsDelta = { requests: 0, refusals: 0 },
): Promise<void> {
  await db.query(
    `UPDATE sources SET lines_taken = lines_taken + $2, lines_refused = lines_refused + $3,
                        requests = requests + $4, refusals = refusals + $5
      WHERE id = $1`,
    [sourceId, taken, refused, asked.requests, asked.refusals],
  );
}

/** Requests and 429s that no stored page counted yet (the end of a pull, or its failure). */
export async function recordRequests(
  db: Queryable,
  sourceId: number,
  asked: RequestsDelta,
): Promise<void> {
  if (asked.requests === 0 && asked.refusals === 0) return;
  await db.query(
    `UPDATE sources SET requests = requests + $2, refusals = refusals + $3 WHERE id = $1`,
    [sourceId, asked.requests, asked.refusals],
  );
}

/** A pull that completed: the error of an earlier one is cleared. */
export async function recordPullSuccess(db: Queryable, sourceId: number, at: Date): Promise<void> {
  await db.query(
    `UPDATE sources SET last_success_at = $2, last_error = NULL, last_error_at = NULL WHERE id = $1`,
    [sourceId, at],
  );
}

/**
 * A pull that stopped short: why, on one line (newlines folded, at most 500 characters), and one
 * more error counted.
 */
export async function recordPullError(
  db: Queryable,
  sourceId: number,
  message: string,
  at: Date,
): Promise<void> {
  const line = message.replace(/\s+/g, ' ').trim().slice(0, 500);
  await db.query(
    `UPDATE sources SET last_error = $2, last_error_at = $3, errors = errors + 1 WHERE id = $1`,
    [sourceId, line, at],
  );
}
