import { CronExpressionParser } from 'cron-parser';
import { currentCirculation } from './current-circulation.js';
import type { TrainCirculation } from './train-circulation.js';
import { ConfigError, type Config } from '../../shared/config/config.js';
import type { Queryable } from '../../shared/db/db.js';
import { SERVICE_TIME_ZONE } from '../../shared/time/service-day.js';

/** What the circulation of a train is, for GetCurrentTrainTimetable. */
export interface TrainCirculationProvider {
  /**
   * The circulation of the train whose current timetable is being answered, or undefined (the
   * field is then left out). `trainCode` is the timetable's own number, `allCodes` every number
   * of the run, `serviceDay` today's.
   */
  circulationOf(train: {
    trainCode: string;
    allCodes: readonly string[];
    serviceDay: number;
  }): Promise<TrainCirculation | undefined>;
}

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

  circulationOf(train: {
    trainCode: string;
    allCodes: readonly string[];
    serviceDay: number;
  }): Promise<TrainCirculation | undefined> {
    return currentCirculation(this.db, {
      trainCode: train.trainCode,
      allCodes: train.allCodes,
      serviceDay: train.serviceDay,
      refreshAt: this.nextRefreshAt(),
      evidenceDays: this.config.CIRCULATION_WINDOW_DAYS,
    });
  }
}
