import { CronExpressionParser } from 'cron-parser';
import { currentCirculation } from './current-circulation.js';
import type { TrainCirculation } from './train-circulation.js';
import { ConfigError, type Config } from '../../shared/config/config.js';
import type { Queryable } from '../../shared/db/db.js';
import { normalizeTrainCode } from '../trains/train-code.js';
import { SERVICE_TIME_ZONE } from '../../shared/time/service-day.js';

/** What the circulation of a train is, for GetCurrentTrainTimetable. */
export interface TrainCirculationProvider {
  /**
   * The circulation of the train whose current timetable is being answered, or undefined (the
   * field is then left out). `trainCode` is the timetable's own number, `allCodes` every number
   * of the run, `serviceDay` today's.
   */
  circulationOf(
    train: {
      trainCode: string;
      allCodes: readonly string[];
      serviceDay: number;
    },
    /**
     * The circulations' data version the caller read first ('circulations'), when it has it:
     * the provider may then answer from what it keeps under that version.
     */
    version?: string,
  ): Promise<TrainCirculation | undefined>;
}

/** Past this many numbers the numbers with a circulation are not kept (every train is looked up). */
const MAX_KEPT_CODES = 500_000;

/**
 * The circulations the API answers with (GetCurrentTrainTimetable's `circulation`, and the
 * picture of GetTrainCirculationImage): currentCirculation over the database, with `refreshAt`
 * the next inference run (CIRCULATION_CRON, Shanghai time): the moment the inferred routes, and
 * the checks of the official tables against them, may change.
 */
export class CurrentCirculationProvider implements TrainCirculationProvider {
  /**
   * The next run as last worked out, and when: it stays the next one until the clock reaches it
   * (or goes back before `from`, as an injected clock may), so the cron pattern (half a
   * millisecond to parse in the zone, on every page and answer that shows a circulation) is
   * parsed again only then.
   */
  private nextRun?: { from: number; at: number };
  /**
   * Every number that the current run's routes or an official table (not skipped, as a
   * passenger train) hold, read once per circulations version: a train holding none of them
   * has no circulation, known without the two lookups. Undefined codes: too many to keep.
   */
  private withCirculation?: { version: string; read: Promise<ReadonlySet<string> | undefined> };

  constructor(
    private readonly db: Queryable,
    private readonly config: Pick<Config, 'CIRCULATION_CRON' | 'CIRCULATION_WINDOW_DAYS'>,
    /** Milliseconds since the epoch. */
    private readonly clock: () => number,
  ) {
    this.nextRefreshAt();
  }

  /** Unix seconds of the next inference run after now. */
  nextRefreshAt(): number {
    const now = this.clock() / 1000;
    const kept = this.nextRun;
    if (kept && now >= kept.from && now < kept.at) return kept.at;
    const at = this.parseNextRun(now * 1000);
    this.nextRun = { from: now, at };
    return at;
  }

  private parseNextRun(nowMs: number): number {
    try {
      const next = CronExpressionParser.parse(this.config.CIRCULATION_CRON, {
        tz: SERVICE_TIME_ZONE,
        currentDate: new Date(nowMs),
      }).next();
      return Math.floor(next.getTime() / 1000);
    } catch (err) {
      throw new ConfigError(
        'CIRCULATION_CRON',
        `not a cron pattern (${(err as Error).message}) (got ${JSON.stringify(this.config.CIRCULATION_CRON)})`,
      );
    }
  }

  async circulationOf(
    train: {
      trainCode: string;
      allCodes: readonly string[];
      serviceDay: number;
    },
    version?: string,
  ): Promise<TrainCirculation | undefined> {
    if (version !== undefined) {
      const codes = await this.codesWithCirculation(version);
      const asked = [train.trainCode, ...train.allCodes].map(normalizeTrainCode);
      if (codes && !asked.some((c) => codes.has(c))) {
        return undefined;
      }
    }
    return currentCirculation(this.db, {
      trainCode: train.trainCode,
      allCodes: train.allCodes,
      serviceDay: train.serviceDay,
      refreshAt: this.nextRefreshAt(),
      evidenceDays: this.config.CIRCULATION_WINDOW_DAYS,
    });
  }

  private codesWithCirculation(version: string): Promise<ReadonlySet<string> | undefined> {
    if (this.withCirculation?.version !== version) {
      const read = readCodesWithCirculation(this.db).catch((err: unknown) => {
        // Not kept: the next caller reads again.
        if (this.withCirculation?.read === read) this.withCirculation = undefined;
        throw err;
      });
      this.withCirculation = { version, read };
    }
    return this.withCirculation.read;
  }
}

/**
 * The numbers currentCirculation may find a circulation for: those of the current run's route
 * nodes and of the passenger trains of official tables not skipped (whatever days they cover: a
 * superset is safe, a number in it is looked up as before). Read after the caller's version,
 * so never older than it.
 */
async function readCodesWithCirculation(db: Queryable): Promise<ReadonlySet<string> | undefined> {
  const r = await db.query<{ code: string }>(
    `SELECT DISTINCT code FROM (
       SELECT unnest(n.train_codes) AS code FROM circulation_route_nodes n
        WHERE n.run_id = (SELECT run_id FROM circulation_current)
       UNION ALL
       SELECT unnest(t.train_codes) FROM official_circulation_trains t
         JOIN official_circulations o ON o.entry_key = t.entry_key
        WHERE o.skip_reason IS NULL AND NOT t.deadhead
     ) c LIMIT $1`,
    [MAX_KEPT_CODES + 1],
  );
  if (r.rows.length > MAX_KEPT_CODES) return undefined;
  return new Set(r.rows.map((row) => row.code));
}
