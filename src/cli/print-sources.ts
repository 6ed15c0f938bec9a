import type { Queryable } from '../shared/db/db.js';
import { listSources, sourceLagSeconds, type Source } from '../domain/sources/source-store.js';
import { shanghaiTime } from '../shared/time/shanghai-time.js';

/** A lag in the largest units that matter: "45 s", "12 min", "3 h 05 min", "2 d 4 h". */
export function lagText(seconds: number | null): string {
  if (seconds === null) return '-';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/**
 * The sources with "now" read from the database: the pulls stamp their successes with the
 * clock they were given, and the lag is read on the clock every process shares (as /metrics
 * does), whatever this machine's says.
 */
export async function sourcesNow(db: Queryable): Promise<{ sources: Source[]; nowMs: number }> {
  const [sources, now] = await Promise.all([
    listSources(db),
    db.query<{ now: Date }>('SELECT now() AS now'),
  ]);
  return { sources, nowMs: now.rows[0]!.now.getTime() };
}

/** A source as `source list --json` and `status --json` print it: no key, only its variable. */
export function sourceJson(s: Source, nowMs: number): Record<string, unknown> {
  return {
    name: s.name,
    kind: s.kind,
    url: s.baseUrl,
    apiKeyEnv: s.apiKeyEnv,
    schedule: s.schedule,
    rate: s.rate,
    trust: s.trust,
    trains: s.trains,
    lastSuccessAt: s.lastSuccessAt?.toISOString() ?? null,
    lagSeconds: sourceLagSeconds(s, nowMs),
    lastError: s.lastError,
    lastErrorAt: s.lastErrorAt?.toISOString() ?? null,
    linesTaken: s.linesTaken,
    linesRefused: s.linesRefused,
    requests: s.requests,
    refusals: s.refusals,
    errors: s.errors,
    createdAt: s.createdAt.toISOString(),
  };
}

/** What a source's pulls counted, as one phrase. */
export function countersText(s: Source): string {
  return (
    `taken ${s.linesTaken}, refused ${s.linesRefused}; ` +
    `${s.requests} request(s), ${s.refusals} 429(s), ${s.errors} error(s)`
  );
}

/** One line of `source list`. */
export function sourceLine(s: Source, nowMs: number): string {
  return (
    `${s.name}  ${s.kind}  ${s.baseUrl}  ` +
    `every: ${s.schedule ?? '-'}  ` +
    `last success: ${s.lastSuccessAt ? shanghaiTime(s.lastSuccessAt) : 'never'}  ` +
    `lag: ${lagText(sourceLagSeconds(s, nowMs))}  ` +
    `last error: ${s.lastError ?? '-'}  ` +
    countersText(s)
  );
}

/** The sources part of `emutrack status`: per source its lag and counters, and its last error. */
export function printSourcesStatus(
  sources: readonly Source[],
  nowMs: number,
  out: (line: string) => void,
): void {
  if (sources.length === 0) {
    out('sources: none');
    return;
  }
  out(`sources (${sources.length}; emutrack source list for their settings):`);
  const width = Math.max(...sources.map((s) => s.name.length));
  for (const s of sources) {
    out(
      `  ${s.name.padEnd(width)}  ${s.kind.padEnd(6)}  lag ${lagText(sourceLagSeconds(s, nowMs))}  ${countersText(s)}` +
        (s.lastError ? `\n  ${''.padEnd(width)}  last error: ${s.lastError}` : ''),
    );
  }
}
