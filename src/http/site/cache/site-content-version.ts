import type { Queryable } from '../../../shared/db/db.js';
import type { DataVersionReader } from '../../../shared/cache/data-versions.js';

/** The site's content as a reader saw it when its request arrived. */
export interface SiteContentState {
  /** The data version 'site_content' (migration 028): moves with every write of the content. */
  version: number;
  /** When the next scheduled (status `future`) item is due, ms since the epoch; null if none. */
  nextPublishMs: number | null;
}

/**
 * The site's content state per request: its version from the app's DataVersionReader (a read
 * begun after the request arrived, shared by the requests of one event-loop turn), so a request
 * sees every transaction committed before it arrived, in this process or any other, and on
 * PGlite alike. The next scheduled publication only changes with the content, so it is read
 * again (with the version, in one statement: a pair of one snapshot) only when the version moved.
 */
export class SiteContentVersionReader {
  /** The last state read in full. */
  private known: SiteContentState | undefined;
  /** The full read under way, shared by the requests that saw the same new version. */
  private reading: { version: number; state: Promise<SiteContentState> } | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly versions: DataVersionReader,
  ) {}

  /** The state read by queries that began after this call. */
  async read(): Promise<SiteContentState> {
    const version = await this.versions.read({ name: 'site_content' });
    if (this.known?.version === version) return this.known;
    if (this.reading?.version !== version) {
      const state = this.readFull();
      this.reading = { version, state };
      void state.then(
        (s) => {
          if (!this.known || s.version >= this.known.version) this.known = s;
        },
        () => {
          if (this.reading?.state === state) this.reading = undefined;
        },
      );
    }
    return this.reading.state;
  }

  private async readFull(): Promise<SiteContentState> {
    const r = await this.db.query<{ version: string | null; next: Date | null }>(
      `SELECT (SELECT version FROM data_versions WHERE name = 'site_content' AND key = 0) AS version,
              (SELECT min(date_gmt) FROM site_posts WHERE status = 'future') AS next`,
    );
    const row = r.rows[0]!;
    return {
      version: Number(row.version ?? 0),
      nextPublishMs: row.next === null ? null : new Date(row.next).getTime(),
    };
  }
}
