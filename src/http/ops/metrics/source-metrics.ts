import type { Queryable } from '../../../shared/db/db.js';
import type { StoredFamily } from './stored-metrics.js';

/**
 * Per source (the sources table): lines taken and refused, requests, 429s and failed pulls, as
 * its pulls counted them, and how long ago its last pull completed. The counters are the
 * table's, incremented by whichever process pulled, so every process scraped says the same. A
 * removed source's counters go with it (a counter reset, which Prometheus's rate() absorbs).
 */
export async function sourceFamilies(db: Queryable): Promise<StoredFamily[]> {
  const r = await db.query<{
    name: string;
    kind: string;
    lines_taken: number;
    lines_refused: number;
    requests: number;
    refusals: number;
    errors: number;
    success_at: number | null;
    lag: number | null;
  }>(
    `SELECT name, kind, lines_taken::float8 AS lines_taken, lines_refused::float8 AS lines_refused,
            requests::float8 AS requests, refusals::float8 AS refusals, errors::float8 AS errors,
            extract(epoch FROM last_success_at)::float8 AS success_at,
            greatest(0, extract(epoch FROM now() - last_success_at))::float8 AS lag
       FROM sources ORDER BY name`,
  );
  const per = (value: (row: (typeof r.rows)[number]) => number) =>
    r.rows.map((row) => ({ labels: { source: row.name, kind: row.kind }, value: value(row) }));
  const succeeded = r.rows.filter((row) => row.success_at !== null);
  return [
    {
      name: 'emutrack_source_lines_total',
      help: 'Lines pulled from each source, per outcome (taken: new observations; refused: see emutrack rejects).',
      type: 'counter',
      values: r.rows.flatMap((row) => [
        { labels: { source: row.name, kind: row.kind, outcome: 'taken' }, value: row.lines_taken },
        {
          labels: { source: row.name, kind: row.kind, outcome: 'refused' },
          value: row.lines_refused,
        },
      ]),
    },
    {
      name: 'emutrack_source_requests_total',
      help: 'HTTP requests sent to each source (429s and retries included).',
      type: 'counter',
      values: per((row) => row.requests),
    },
    {
      name: 'emutrack_source_rate_limited_total',
      help: 'Answers 429 (too many requests) from each source, each waited out before asking again.',
      type: 'counter',
      values: per((row) => row.refusals),
    },
    {
      name: 'emutrack_source_errors_total',
      help: 'Pulls of each source that stopped short with an error (emutrack source list says the last).',
      type: 'counter',
      values: per((row) => row.errors),
    },
    {
      name: 'emutrack_source_last_success_timestamp_seconds',
      help: "When each source's last pull that completed finished (Unix seconds); absent if none did.",
      type: 'gauge',
      values: succeeded.map((row) => ({
        labels: { source: row.name, kind: row.kind },
        value: row.success_at!,
      })),
    },
    {
      name: 'emutrack_source_lag_seconds',
      help: "Seconds since each source's last pull that completed; absent if none did.",
      type: 'gauge',
      values: succeeded.map((row) => ({
        labels: { source: row.name, kind: row.kind },
        value: row.lag!,
      })),
    },
  ];
}
