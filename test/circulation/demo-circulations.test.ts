import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/shared/app/package-root.js';
import { demoCirculations } from '../../src/cli/demo-circulations.js';
import {
  midnightOfServiceDay,
  serviceDayFromYmd,
  serviceDayOf,
} from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
let dir: string | undefined;
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe('the demo’s circulations (npm run demo)', () => {
  it('leave an inferred one-day loop, a confirmed official three-day table, a picture and a prediction for today', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-demo-circ-'));
    const today = serviceDayFromYmd('20261123');
    const lines: string[] = [];
    const r = await demoCirculations(
      t.current.db,
      path.join(packageRoot(), 'fixtures', 'circulations'),
      dir,
      (line) => lines.push(line),
      today,
    );
    const days = (nodes: { startAt: number }[]) =>
      [...new Set(nodes.filter((n) => n.startAt > 0).map((n) => serviceDayOf(n.startAt)))].sort();
    expect(r.inferred?.source).toBe('inferred');
    expect(r.inferred?.nodes).toHaveLength(6);
    expect(days(r.inferred!.nodes)).toEqual([today]);
    expect(r.official?.source).toBe('official');
    expect(r.official?.metadata?.validationState).toBe('raw_official');
    expect(days(r.official!.nodes)).toEqual([today - 1, today, today + 1]);
    expect(r.official!.nodes[3]!.startAt).toBe(midnightOfServiceDay(today) + (14 * 60 + 10) * 60);
    expect(r.prediction.candidates[0]).toMatchObject({
      emuCode: expect.stringMatching(/^CR400BF-540/),
    });
    const png = await readFile(r.picture);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(lines.join('\n')).toMatch(/official table imported \(1 new\), D7404's is raw_official/);
  }, 120_000);
});
