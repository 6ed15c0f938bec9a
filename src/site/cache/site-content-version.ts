import type { Queryable } from '../../db/db.js';
import type { Logger } from '../../log/logger.js';

/** The site's content as a reader saw it when its request arrived. */
export interface SiteContentState {
  /** Changes when any transaction that wrote the site's content commits (migration 014). */
  version: number;
  /** When the next scheduled (status `future`) item is due, ms since the epoch; null if none. */
  nextPublishMs: number | null;
  /** The type of that item (to publish it when it is due). */
  nextPublishType: string | null;
}

export interface SiteContentVersionOptions {
  /** Change rows kept before they are folded into the base. Default 256. */
  compactAbove?: number;
  logger?: Logger;
}

interface Batch {
  done: Promise<SiteContentState>;
  resolve(state: SiteContentState): void;
  reject(err: unknown): void;
}

/**
 * Reads the site content version for many concurrent requests with few queries, never answering
 * from a read that began before the request did: requests arriving while a read runs join the
 * next one, which starts when that read ends (as F's PageVersionReader). A request therefore
 * sees every transaction committed before it arrived, in this process or any other, and on
 * PGlite alike. Now and then it folds the committed change rows into the base (one statement,
 * the sum unchanged) so that the count stays a small index scan.
 */
export class SiteContentVersionReader {
  private next: Batch | undefined;
  private running = false;
  private compacting = false;
  private readonly compactAbove: number;

  constructor(
    private readonly db: Queryable,
    private readonly options: SiteContentVersionOptions = {},
  ) {
    this.compactAbove = options.compactAbove ?? 256;
  }

  /** The state read by a query that began after this call. */
  read(): Promise<SiteContentState> {
    const batch = (this.next ??= newBatch());
    if (!this.running) this.start();
    return batch.done;
  }

  private start(): void {
    const batch = this.next;
    if (!batch) return;
    this.next = undefined;
    this.running = true;
    this.query()
      .then(batch.resolve, batch.reject)
      .finally(() => {
        this.running = false;
        this.start();
      });
  }

  private async query(): Promise<SiteContentState> {
    const r = await this.db.query<{
      base: string;
      pending: string;
      next_ms: string | null;
      next_type: string | null;
    }>(
      `SELECT v.base, (SELECT count(*) FROM site_content_changes) AS pending,
              (extract(epoch FROM f.date_gmt) * 1000)::bigint AS next_ms, f.type AS next_type
         FROM site_content_version v
         LEFT JOIN LATERAL (SELECT date_gmt, type FROM site_posts WHERE status = 'future'
                             ORDER BY date_gmt LIMIT 1) f ON true`,
    );
    const row = r.rows[0];
    if (!row) throw new Error('site_content_version has no row (migration 014)');
    const pending = Number(row.pending);
    if (pending > this.compactAbove) this.compact();
    return {
      version: Number(row.base) + pending,
      nextPublishMs: row.next_ms === null ? null : Number(row.next_ms),
      nextPublishType: row.next_type,
    };
  }

  /** Folds committed change rows into the base in one statement: the version does not move. */
  private compact(): void {
    if (this.compacting) return;
    this.compacting = true;
    this.db
      .query(
        `WITH folded AS (DELETE FROM site_content_changes RETURNING 1)
         UPDATE site_content_version SET base = base + (SELECT count(*) FROM folded)`,
      )
      .catch((err: unknown) =>
        this.options.logger?.warn({ err }, 'site content version: compaction failed'),
      )
      .finally(() => (this.compacting = false));
  }
}

function newBatch(): Batch {
  let resolve!: Batch['resolve'];
  let reject!: Batch['reject'];
  const done = new Promise<SiteContentState>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Each waiting request awaits it; this only keeps Node from calling a failure unhandled.
  done.catch(() => {});
  return { done, resolve, reject };
}
