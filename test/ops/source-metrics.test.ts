import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { OperationsMetrics } from '../../src/http/ops/metrics/operations-metrics.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import { addSource, recordPullError } from '../../src/domain/sources/source-store.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string }[];
}

describe('per-source families of /metrics', () => {
  it('reads each source counters from the database, and its lag once a pull completed', async () => {
    const { db } = t.current;
    const metrics = new OperationsMetrics({
      db,
      logger: { warn: () => {} },
      processMetrics: false,
    });
    const empty = await metrics.render();
    expect(empty).toContain('# TYPE emutrack_source_requests_total counter');
    expect(empty).not.toMatch(/^emutrack_source_requests_total\{/m);

    const peer = await addSource(
      db,
      checkSourceSettings({ name: 'peer', kind: 'v2', url: 'https://a.example' }),
    );
    await addSource(
      db,
      checkSourceSettings({ name: 'rr', kind: 'railre', url: 'https://b.example' }),
    );
    await db.query(
      `UPDATE sources SET lines_taken = 120, lines_refused = 3, requests = 17, refusals = 4,
              last_success_at = now() - interval '90 s' WHERE id = $1`,
      [peer.id],
    );
    await recordPullError(db, peer.id, 'source peer: HTTP 500', new Date());
    const families = new Map(
      (parsePrometheusTextFormat(await metrics.render()) as Family[]).map((f) => [f.name, f]),
    );
    const samples = (name: string) =>
      families.get(name)!.metrics.map((m): Record<string, string | number> => ({
        ...m.labels,
        value: Number(m.value),
      }));
    expect(families.get('emutrack_source_lines_total')!.type).toBe('COUNTER');
    expect(samples('emutrack_source_lines_total')).toEqual([
      { source: 'peer', kind: 'v2', outcome: 'taken', value: 120 },
      { source: 'peer', kind: 'v2', outcome: 'refused', value: 3 },
      { source: 'rr', kind: 'railre', outcome: 'taken', value: 0 },
      { source: 'rr', kind: 'railre', outcome: 'refused', value: 0 },
    ]);
    expect(samples('emutrack_source_requests_total')).toEqual([
      { source: 'peer', kind: 'v2', value: 17 },
      { source: 'rr', kind: 'railre', value: 0 },
    ]);
    expect(samples('emutrack_source_rate_limited_total')[0]).toMatchObject({ value: 4 });
    expect(samples('emutrack_source_errors_total')).toEqual([
      { source: 'peer', kind: 'v2', value: 1 },
      { source: 'rr', kind: 'railre', value: 0 },
    ]);
    // Only a source that ever completed a pull has a lag (rr never did).
    const lag = samples('emutrack_source_lag_seconds');
    expect(lag.map((l) => l.source)).toEqual(['peer']);
    expect(lag[0]!.value).toBeGreaterThanOrEqual(90);
    expect(lag[0]!.value).toBeLessThan(150);
    expect(samples('emutrack_source_last_success_timestamp_seconds')).toHaveLength(1);
  });
});
