import type { Db } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { agentGet } from '../../shared/io/agent-get.js';
import type { HttpGet } from '../../shared/io/http-get.js';
import { serviceDayOf, ymdOfServiceDay } from '../../shared/time/service-day.js';
import { readEmuFormPolicy } from '../emus/emu-forms.js';
import { openIngestBatch } from '../ingest/ingest-values.js';
import { pullFeed } from './feed-pull.js';
import { closePull, pullByRequests } from './pull-requests.js';
import { railreKind } from './railre-kind.js';
import { checkBaseUrl, type SourceKind } from './source-config.js';
import type { SourceKindPuller } from './source-kind.js';
import {
  getSource,
  readDayCursor,
  recordPullError,
  recordPullSuccess,
  RequestTally,
  type Source,
} from './source-store.js';
import { realClock, SourceRequestError, type PullClock } from './paced-http.js';
import { pullV2Day, type DayPull, type V2DaySettings } from './pull-v2-day.js';
import { V2Client } from './v2-client.js';
import { V2PageRows } from './v2-page-rows.js';

export type { DayPull } from './pull-v2-day.js';

export interface PullOptions {
  /** First and last service day (inclusive); default yesterday and today by the clock. */
  from?: number;
  to?: number;
  clock?: PullClock;
  get?: HttpGet;
  /** Where the API key's variable is read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Records asked for per page. Default 200 (the v2 API's largest page). */
  pageLimit?: number;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
  /** Largest answer read. Default 16 MiB. */
  maxBytes?: number;
  /** Longest wait a server may ask for before the pull gives up. Default 900 s. */
  maxWaitSeconds?: number;
  /** Accept EMU codes of no known model form (the setting ALLOW_UNKNOWN_EMU_FORMS). */
  allowUnknownEmuForms?: boolean;
  userAgent?: string;
  /** The trains a railre source asks for in this pull, instead of its own list. */
  trains?: readonly string[];
  /** Trains per request of a railre source's comma form (default 10). */
  batchSize?: number;
}

export interface PullResult {
  source: string;
  batchId: number;
  days: DayPull[];
  requests: number;
  /** 429s met (each waited out). */
  refusals: number;
  waitedMs: number;
  taken: number;
  duplicate: number;
  refused: number;
  /** Service days that received new observations (stale now, rebuilt as late data is). */
  serviceDays: number[];
  /** A kind asked by requests (railre): what they covered (trains), planned and answered. */
  asked?: { items: number; planned: number; answered: number };
  /** A v2-feed source: the cursors it went from and to, and what the changes did here. */
  feed?: {
    from: string;
    cursor: string;
    pages: number;
    changes: number;
    retracted: number;
    restored: number;
  };
}

/** The kinds pulled by a list of requests (source-kind.ts): every kind but v2's pages and feed. */
function kindPuller(
  kind: Exclude<SourceKind, 'v2' | 'v2-feed'>,
  options: PullOptions,
): SourceKindPuller {
  switch (kind) {
    case 'railre':
      return railreKind(options.batchSize);
  }
}

/** A pull that stopped short: the message is one line naming the source (and the URL, no key). */
export class SourcePullError extends EmutrackError {
  constructor(
    readonly sourceName: string,
    reason: string,
    readonly partial: PullResult | undefined,
  ) {
    super('source_pull_failed', `source ${sourceName}: ${reason}`);
  }
}

/** How every kind asks its upstream, the options' defaults filled in. */
function requestSettings(options: PullOptions) {
  return {
    get: options.get ?? agentGet,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxBytes: options.maxBytes ?? 16 << 20,
    maxWaitSeconds: options.maxWaitSeconds ?? 900,
    userAgent: options.userAgent ?? 'emutrack source pull',
  };
}

/** A v2-feed source's pull: its feed from the stored cursor (the range is not its to choose). */
async function pullFeedSource(
  db: Db,
  source: Source,
  options: PullOptions,
  apiKey: string | undefined,
  fail: (reason: string, partial: PullResult | undefined) => Promise<never>,
): Promise<PullResult> {
  const clock = options.clock ?? realClock;
  let pulled;
  try {
    pulled = await pullFeed(db, source, {
      baseUrl: checkBaseUrl(source.baseUrl),
      apiKey,
      clock,
      ...requestSettings(options),
      emuForms: await readEmuFormPolicy(db, options.allowUnknownEmuForms ?? false),
      pageLimit: options.pageLimit ?? 500,
    });
  } catch (err) {
    // Not the upstream's doing (the database, a bug): still said on the source, then thrown.
    await recordPullError(
      db,
      source.id,
      `source ${source.name}: feed: ${(err as Error).message}`,
      new Date(clock.now()),
    ).catch(() => {});
    throw err;
  }
  const { failure, batchId, from, cursor, pages, changes, retracted, restored, ...counts } = pulled;
  const result: PullResult = {
    source: source.name,
    batchId,
    days: [],
    ...counts,
    feed: { from, cursor, pages, changes, retracted, restored },
  };
  if (failure !== undefined) return fail(`feed: ${failure}`, result);
  await recordPullSuccess(db, source.id, new Date(clock.now()));
  return result;
}

/**
 * Pulls a `v2` source's records of each day of a range into observations: every page of
 * GET {base}/api/v2/records/daily?date=..., each record an observation of its train on its unit
 * at its service day, keyed by the upstream record's id, stored as the ingest path of files
 * stores its lines (v2-page-rows.ts, writeObservationChunk): a repeated pull adds nothing, and
 * the days that received new sightings are marked stale and rebuilt as late data is. Pages are
 * stored as they come (the next one asked for meanwhile: pull-v2-day.ts), with the day's
 * cursor: a pull cut short keeps its pages and the next one resumes at the page it did not
 * store. A day pulled to its end is asked again from its first page, with If-None-Match when
 * the server gave an ETag. A failure is stored on the source as one line and
 * thrown as a SourcePullError; other sources are not touched.
 */
export async function pullSource(
  db: Db,
  name: string,
  options: PullOptions = {},
): Promise<PullResult> {
  const source = await getSource(db, name);
  const clock = options.clock ?? realClock;
  const today = serviceDayOf(Math.floor(clock.now() / 1000));
  const from = options.from ?? today - 1;
  const to = options.to ?? today;
  const fail = async (reason: string, partial: PullResult | undefined): Promise<never> => {
    const err = new SourcePullError(source.name, reason, partial);
    await recordPullError(db, source.id, err.message, new Date(clock.now()));
    throw err;
  };
  if (to < from) return fail('the range ends before it starts', undefined);
  let apiKey: string | undefined;
  if (source.apiKeyEnv !== null) {
    apiKey = (options.env ?? process.env)[source.apiKeyEnv];
    if (apiKey === undefined || apiKey === '')
      return fail(`environment variable ${source.apiKeyEnv} (its API key) is not set`, undefined);
  }
  if (options.trains !== undefined && source.kind !== 'railre')
    return fail('only a railre source asks for trains', undefined);
  if (source.kind === 'v2-feed') return pullFeedSource(db, source, options, apiKey, fail);
  if (source.kind !== 'v2') {
    const pulled = await pullByRequests(db, source, kindPuller(source.kind, options), {
      from,
      to,
      ...(options.trains ? { trains: options.trains } : {}),
      apiKey,
      clock,
      ...requestSettings(options),
      emuForms: await readEmuFormPolicy(db, options.allowUnknownEmuForms ?? false),
    });
    const result: PullResult = {
      source: source.name,
      batchId: pulled.batchId,
      days: [],
      requests: pulled.requests,
      refusals: pulled.refusals,
      waitedMs: pulled.waitedMs,
      taken: pulled.taken,
      duplicate: pulled.duplicate,
      refused: pulled.refused,
      serviceDays: pulled.serviceDays,
      asked: { items: pulled.asked, planned: pulled.planned, answered: pulled.answered },
    };
    const [first, ...more] = pulled.problems;
    if (first !== undefined)
      return fail(
        more.length > 0 ? `${first} (and ${more.length} more problem(s))` : first,
        result,
      );
    await recordPullSuccess(db, source.id, new Date(clock.now()));
    return result;
  }
  const client = new V2Client({
    baseUrl: checkBaseUrl(source.baseUrl),
    apiKey,
    rate: source.rate,
    clock,
    ...requestSettings(options),
    maxRefusals: 20,
  });
  const limit = options.pageLimit ?? 200;
  const batchId = await openIngestBatch(db, `source:${source.name}`);
  const result: PullResult = {
    source: source.name,
    batchId,
    days: [],
    requests: 0,
    refusals: 0,
    waitedMs: 0,
    taken: 0,
    duplicate: 0,
    refused: 0,
    serviceDays: [],
  };
  const touched = new Set<number>();
  const tally = new RequestTally(client);
  const daySettings: V2DaySettings = {
    source,
    client,
    batchId,
    limit,
    emuCache: new Map<string, number>(),
    rows: new V2PageRows(
      source,
      await readEmuFormPolicy(db, options.allowUnknownEmuForms ?? false),
    ),
    tally,
  };
  let failure: string | undefined;
  try {
    for (let day = from; day <= to && failure === undefined; day++) {
      const ymd = ymdOfServiceDay(day);
      const state = await readDayCursor(db, source.id, day);
      const dayPull: DayPull = {
        serviceDay: day,
        pages: 0,
        taken: 0,
        duplicate: 0,
        refused: 0,
        unchanged: false,
        resumedAt: state && !state.completed ? state.nextCursor : '',
      };
      result.days.push(dayPull);
      try {
        await pullV2Day(db, daySettings, day, state, dayPull, touched);
      } catch (err) {
        if (!(err instanceof SourceRequestError)) {
          // Not the upstream's doing (the database, a bug): still said on the source, then thrown.
          await recordPullError(
            db,
            source.id,
            `source ${source.name}: ${ymd}: ${(err as Error).message}`,
            new Date(clock.now()),
          ).catch(() => {});
          throw err;
        }
        failure = `${ymd}: ${err.message}`;
      } finally {
        result.taken += dayPull.taken;
        result.duplicate += dayPull.duplicate;
        result.refused += dayPull.refused;
      }
    }
  } finally {
    await closePull(db, batchId, result, client, touched, { sourceId: source.id, tally });
  }
  if (failure !== undefined) return fail(failure, result);
  await recordPullSuccess(db, source.id, new Date(clock.now()));
  return result;
}
