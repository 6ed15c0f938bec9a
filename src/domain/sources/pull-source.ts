import type { Db } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { fetchGet, type HttpGet } from '../../shared/io/http-get.js';
import {
  midnightOfServiceDay,
  serviceDayOf,
  ymdOfServiceDay,
} from '../../shared/time/service-day.js';
import { readEmuFormPolicy } from '../emus/emu-forms.js';
import {
  ingestObservationValues,
  openIngestBatch,
  type ObservationValue,
} from '../ingest/ingest-values.js';
import { closePull, pullByRequests } from './pull-requests.js';
import { railreKind } from './railre-kind.js';
import { checkBaseUrl, type SourceKind } from './source-config.js';
import type { SourceKindPuller } from './source-kind.js';
import {
  getSource,
  readDayCursor,
  recordPageTaken,
  recordPullError,
  recordPullSuccess,
  RequestTally,
  type Source,
} from './source-store.js';
import { realClock, SourceRequestError, type PullClock } from './paced-http.js';
import { V2Client } from './v2-client.js';
import type { V2Page } from './v2-page.js';

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
}

/** The kinds pulled by a list of requests (source-kind.ts): every kind but v2's paged days. */
function kindPuller(kind: Exclude<SourceKind, 'v2'>, options: PullOptions): SourceKindPuller {
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

const MAX_PAGES_PER_DAY = 100_000;
/** Where a record's sighting is put when its timetable gives no start: noon of its day. */
const NOON = 12 * 3600;

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
function observationOf(source: Source, day: number, page: V2Page, index: number): ObservationValue {
  const r = page.items[index]!;
  const raw = JSON.stringify(r);
  const line = r.id <= 0x7fffffff ? r.id : index + 1;
  if (r.serviceDay !== day)
    return {
      line,
      raw,
      value: null,
      problem: {
        field: 'serviceDay',
        reason: `serviceDay: ${r.serviceDay}, not the page's ${day}`,
      },
    };
  const emuCode = page.emuCodeMappings?.[String(r.emuId)];
  if (emuCode === undefined)
    return {
      line,
      raw,
      value: null,
      problem: {
        field: 'emuCode',
        reason: `emuCode: no emuCodeMappings entry for emuId ${r.emuId}`,
      },
    };
  if (r.trainCode === undefined)
    return {
      line,
      raw,
      value: null,
      problem: { field: 'trainCode', reason: 'trainCode: missing' },
    };
  const start =
    r.timetableId !== undefined
      ? page.timetableMappings?.[String(r.timetableId)]?.startOffset
      : undefined;
  const offset = start !== undefined && start >= 0 && start < 2 * 86_400 ? start : NOON;
  const formation = r.status & 0x06;
  return {
    line,
    raw,
    value: {
      observedAt: midnightOfServiceDay(day) + offset,
      serviceDate: ymdOfServiceDay(day),
      trainCode: `${r.trainCode.prefix}${r.trainCode.number}`,
      emuCode,
      source: source.name,
      ref: String(r.id),
      position: formation === 0x04 ? 'first' : formation === 0x06 ? 'second' : null,
      fault: r.status & 0x08 ? true : null,
      spare: r.status & 0x10 ? true : null,
    },
  };
}

/**
 * Pulls a `v2` source's records of each day of a range into observations: every page of
 * GET {base}/api/v2/records/daily?date=..., each record an observation of its train on its unit
 * at its service day, keyed by the upstream record's id, through the ingest path of files
 * (ingestObservationValues): a repeated pull adds nothing, and the days that received new
 * sightings are marked stale and rebuilt as late data is. Each page is stored as it comes,
 * with the day's cursor: a pull cut short keeps its pages and the next one resumes at the page
 * it did not get. A day pulled to its end is asked again from its first page, with
 * If-None-Match when the server gave an ETag. A failure is stored on the source as one line and
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
  if (source.kind !== 'v2') {
    const pulled = await pullByRequests(db, source, kindPuller(source.kind, options), {
      from,
      to,
      ...(options.trains ? { trains: options.trains } : {}),
      apiKey,
      clock,
      get: options.get ?? fetchGet,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBytes: options.maxBytes ?? 16 << 20,
      maxWaitSeconds: options.maxWaitSeconds ?? 900,
      userAgent: options.userAgent ?? 'emutrack source pull',
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
    get: options.get ?? fetchGet,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxBytes: options.maxBytes ?? 16 << 20,
    maxWaitSeconds: options.maxWaitSeconds ?? 900,
    maxRefusals: 20,
    userAgent: options.userAgent ?? 'emutrack source pull',
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
  const emuCache = new Map<string, number>();
  const emuForms = await readEmuFormPolicy(db, options.allowUnknownEmuForms ?? false);
  const tally = new RequestTally(client);
  let failure: string | undefined;
  try {
    for (let day = from; day <= to && failure === undefined; day++) {
      const ymd = ymdOfServiceDay(day);
      const file = `source:${source.name}/${ymd}`;
      const state = await readDayCursor(db, source.id, day);
      const resume = state && !state.completed ? state.nextCursor : '';
      const dayPull: DayPull = {
        serviceDay: day,
        pages: 0,
        taken: 0,
        duplicate: 0,
        refused: 0,
        unchanged: false,
        resumedAt: resume,
      };
      result.days.push(dayPull);
      let cursor = resume;
      try {
        for (;;) {
          const first = cursor === '';
          const etag = first && state?.completed ? (state.firstPageEtag ?? undefined) : undefined;
          const answer = await client.page(ymd, limit, cursor, etag);
          if (answer.kind === 'unchanged') {
            dayPull.unchanged = true;
            break;
          }
          const { page } = answer;
          const url = client.pageUrl(ymd, limit, cursor);
          if (page.serviceDay !== day)
            throw new SourceRequestError(url, `data.serviceDay: ${page.serviceDay}, not ${day}`);
          const bad = checkNextCursor(day, cursor, page.nextCursor);
          if (bad !== undefined) throw new SourceRequestError(url, bad);
          const values = page.items.map((_, i) => observationOf(source, day, page, i));
          const w = await ingestObservationValues(db, batchId, file, values, {
            emuCache,
            emuForms,
          });
          await recordPageTaken(
            db,
            source.id,
            day,
            {
              nextCursor: page.nextCursor,
              first,
              etag: answer.etag,
              taken: w.accepted,
              refused: w.rejected,
            },
            tally.take(),
          );
          for (const d of w.serviceDays) touched.add(d);
          dayPull.pages++;
          dayPull.taken += w.accepted;
          dayPull.duplicate += w.duplicate;
          dayPull.refused += w.rejected;
          if (page.nextCursor === '') break;
          if (dayPull.pages >= MAX_PAGES_PER_DAY)
            throw new SourceRequestError(url, `more than ${MAX_PAGES_PER_DAY} pages in one day`);
          cursor = page.nextCursor;
        }
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
