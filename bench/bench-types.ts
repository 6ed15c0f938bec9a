import type { Db } from '../src/shared/db/db.js';

/** One line of the benchmark table. */
export interface BenchRow {
  suite: string;
  metric: string;
  value: number;
  unit: string;
  /** The same figure for the reference measured in the same run (raw COPY, bare route, ...). */
  reference?: number;
  /** value / reference, or reference / value for "lower is better" metrics: always >= 1 is better. */
  ratio?: number;
  /** The target, in words (">= 0.5x", "<= 300 ms"). */
  target?: string;
  /** Whether the target was met; undefined when there is none. */
  pass?: boolean;
}

export interface BenchDatabase {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

export interface BenchContext {
  /** Postgres server the benchmark may create databases on. */
  adminUrl: string;
  redisUrl: string;
  /** A fresh migrated database, dropped by drop(). */
  createDatabase(): Promise<BenchDatabase>;
  log(message: string): void;
  /** --quick: smaller sizes, for a smoke run. */
  quick: boolean;
}

export interface BenchSuite {
  name: string;
  run(ctx: BenchContext): Promise<BenchRow[]>;
}
