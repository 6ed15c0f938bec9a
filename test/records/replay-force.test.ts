import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { replayDays } from '../../src/cli/replay-days.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

/** The lines replay writes (a stream that is not a TTY gets one line per day). */
function lines() {
  const stream = new PassThrough();
  const text: string[] = [];
  stream.on('data', (b: Buffer) => text.push(b.toString()));
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text.join('') };
}

describe('replay: unchanged days skipped through the job, --force builds them', () => {
  it('skips the unchanged day, builds the changed one, and --force builds both', async () => {
    const ctx = { config: loadConfig({}), db: t.current.db, logger: createLogger('silent') };
    await ingestSightings(t.current.db, [
      ...sightings('20260801', 'G70', 'CR400AF-2501', 2),
      ...sightings('20260802', 'G71', 'CR400AF-2502', 2),
    ]);
    const from = serviceDayFromYmd('20260801');
    const to = serviceDayFromYmd('20260802');
    const first = await replayDays(ctx, from, to, { stream: lines().stream });
    expect(first.succeeded.map((d) => d.build.skipped)).toEqual([false, false]);

    await ingestSightings(t.current.db, sightings('20260802', 'G72', 'CR400AF-2503', 2));
    const out = lines();
    const second = await replayDays(ctx, from, to, { stream: out.stream });
    expect(second.succeeded.map((d) => [d.build.skipped, d.build.inserted])).toEqual([
      [true, 0],
      [false, 1],
    ]);
    expect(out.text()).toMatch(
      /^20260801 ok: 1 records \(\+0 ~0 -0\), export 1 rows \(unchanged\), build skipped \(inputs unchanged\)$/m,
    );

    const forced = await replayDays(ctx, from, to, { stream: lines().stream, force: true });
    expect(forced.succeeded.map((d) => [d.build.skipped, d.build.version])).toEqual([
      [false, 1],
      [false, 2],
    ]);
    const runs = await t.current.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM job_runs WHERE job = 'build-daily-records' AND status = 'completed'`,
    );
    expect(runs.rows[0]!.n).toBe(6);
  });
});
