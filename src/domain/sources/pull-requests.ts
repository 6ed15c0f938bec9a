import type { Db } from '../../shared/db/db.js';
import type { HttpGet } from '../../shared/io/http-get.js';
import type { EmuFormPolicy } from '../emus/emu-forms.js';
import {
  finishIngestBatch,
  ingestObservationValues,
  openIngestBatch,
} from '../ingest/ingest-values.js';
import { PacedHttp, SourceRequestError, type PullClock } from './paced-http.js';
import type { SourceKindPuller } from './source-kind.js';
import { recordLinesTaken, recordRequests, RequestTally, type Source } from './source-store.js';

export interface RequestsPullSettings {
  from: number;
  to: number;
  trains?: readonly string[];
  apiKey: string | undefined;
  clock: PullClock;
  get: HttpGet;
  timeoutMs: number;
  maxBytes: number;
  maxWaitSeconds: number;
  userAgent: string;
  emuForms: EmuFormPolicy;
}

export interface RequestsPull {
  batchId: number;
  /** What the requests covered (a railre source: the trains). */
  asked: number;
  /** Requests planned; `answered` of them were read. */
  planned: number;
  answered: number;
  requests: number;
  refusals: number;
  waitedMs: number;
  taken: number;
  duplicate: number;
  refused: number;
  serviceDays: number[];
  /** One line each, naming the URL and the field: answers not read, rows refused. */
  problems: string[];
  /** A request got no answer: the requests after it were not asked. */
  stopped: boolean;
}

/**
 * Asks each request a kind plans, in order and paced (PacedHttp), and ingests what the kind reads
 * of each answer through the ingest path of files (ingestObservationValues), answer by answer.
 * An answer the kind cannot read (a status, HTML, a wrong shape) is skipped and said; a row it
 * refuses is recorded in rejects and said; the good rows are kept either way. A request that
 * gets no answer at all (a timeout, a cut connection, 429s without end) stops the pull there.
 */
export async function pullByRequests(
  db: Db,
  source: Source,
  kind: SourceKindPuller,
  s: RequestsPullSettings,
): Promise<RequestsPull> {
  const plan = await kind.plan({
    db,
    source,
    from: s.from,
    to: s.to,
    ...(s.trains ? { trains: s.trains } : {}),
  });
  const http = new PacedHttp({
    rate: source.rate,
    clock: s.clock,
    get: s.get,
    timeoutMs: s.timeoutMs,
    maxBytes: s.maxBytes,
    maxWaitSeconds: s.maxWaitSeconds,
    maxRefusals: 20,
  });
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': s.userAgent };
  if (s.apiKey !== undefined) headers.authorization = `Bearer ${s.apiKey}`;
  const batchId = await openIngestBatch(db, `source:${source.name}`);
  const result: RequestsPull = {
    batchId,
    asked: plan.asked,
    planned: plan.requests.length,
    answered: 0,
    requests: 0,
    refusals: 0,
    waitedMs: 0,
    taken: 0,
    duplicate: 0,
    refused: 0,
    serviceDays: [],
    problems: [],
    stopped: false,
  };
  const touched = new Set<number>();
  const emuCache = new Map<string, number>();
  const tally = new RequestTally(http);
  try {
    for (const request of plan.requests) {
      let res;
      try {
        res = await http.get(request.url, headers);
      } catch (err) {
        if (!(err instanceof SourceRequestError)) throw err;
        result.problems.push(err.message);
        result.stopped = true;
        break;
      }
      let values;
      try {
        values = kind.read(source, request, res);
      } catch (err) {
        if (!(err instanceof SourceRequestError)) throw err;
        result.problems.push(err.message);
        continue;
      }
      const w = await ingestObservationValues(db, batchId, request.file, values, {
        emuCache,
        emuForms: s.emuForms,
        ...(kind.fieldNames ? { fieldNames: kind.fieldNames } : {}),
      });
      await recordLinesTaken(db, source.id, w.accepted, w.rejected, tally.take());
      for (const r of w.rejects)
        result.problems.push(`GET ${request.url}: row ${r.line}: ${r.reason}`);
      for (const d of w.serviceDays) touched.add(d);
      result.answered++;
      result.taken += w.accepted;
      result.duplicate += w.duplicate;
      result.refused += w.rejected;
    }
  } finally {
    await closePull(db, batchId, result, http, touched, { sourceId: source.id, tally });
  }
  return result;
}

/** What a pull counts, whatever its kind: its requests, and the lines it took. */
export interface PullCounts {
  requests: number;
  refusals: number;
  waitedMs: number;
  taken: number;
  duplicate: number;
  refused: number;
  serviceDays: number[];
}

/**
 * The end of every pull, finished or cut short: the client's request counters and the days
 * touched into the result, the requests no stored page counted added to the source's counters,
 * and the ingest batch closed with the lines it read.
 */
export async function closePull(
  db: Db,
  batchId: number,
  result: PullCounts,
  client: Pick<PullCounts, 'requests' | 'refusals' | 'waitedMs'>,
  touched: ReadonlySet<number>,
  counted?: { sourceId: number; tally: RequestTally },
): Promise<void> {
  if (counted) await recordRequests(db, counted.sourceId, counted.tally.take());
  result.requests = client.requests;
  result.refusals = client.refusals;
  result.waitedMs = client.waitedMs;
  result.serviceDays = [...touched].sort((a, b) => a - b);
  await finishIngestBatch(db, batchId, {
    read: result.taken + result.duplicate + result.refused,
    accepted: result.taken,
    duplicate: result.duplicate,
    rejected: result.refused,
  });
}
