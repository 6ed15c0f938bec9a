import { fork, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { createAppPassword } from '../../src/domain/content/app-passwords.js';
import { setSiteRole } from '../../src/domain/content/site-roles.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { median } from '../repeat.js';

const SUITE = 'uploads';
const WIDTH = 4000;
const HEIGHT = 3000;
const RSS_LIMIT = 300 * 1024 * 1024;

function message<T>(child: ChildProcess, accept: (m: unknown) => m is T): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown) => {
      if (!accept(m)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m);
    };
    const onExit = (code: number | null) => reject(new Error(`uploads child exited (${code})`));
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

async function requestsPerSecond(
  url: string,
  seconds: number,
): Promise<{ rate: number; non2xx: number }> {
  const result = await autocannon({ url, connections: 20, duration: seconds, workers: 1 });
  return { rate: result.requests.average, non2xx: result.non2xx + result.errors };
}

/**
 * Media uploads: a 4000x3000 JPEG (a noisy photo-like image, several MB) uploaded through the
 * site's HTTP API with every size made in the request, three times (median ms), the server
 * process's peak RSS against the issue's 300 MB; then GET of one made size under load
 * (autocannon, 20 connections) against a bare Node server streaming the same file from the same
 * directory in the same process, alternated three times, medians.
 */
export const uploadsSuite: BenchSuite = {
  name: SUITE,
  async run(ctx) {
    const bench = await ctx.createDatabase();
    const dir = await mkdtemp(path.join(tmpdir(), 'emutrack-bench-uploads-'));
    const uploads = path.join(dir, 'uploads');
    let child: ChildProcess | undefined;
    try {
      const user = await bench.db.query<{ id: string }>(
        `INSERT INTO users (username, password_hash) VALUES ('bench-uploader', 'x') RETURNING id`,
      );
      const userId = Number(user.rows[0]!.id);
      await setSiteRole(bench.db, userId, 'author');
      const { password } = await createAppPassword(bench.db, { userId, name: 'bench' });
      const authorization = `Basic ${Buffer.from(`bench-uploader:${password}`).toString('base64')}`;

      const photo = path.join(dir, 'photo.jpg');
      await sharp({
        create: {
          width: WIDTH,
          height: HEIGHT,
          channels: 3,
          background: '#808080',
          noise: { type: 'gaussian', mean: 128, sigma: 40 },
        },
      })
        .blur(1.2)
        .jpeg({ quality: 90 })
        .toFile(photo);
      const photoBytes = (await stat(photo)).size;
      ctx.log(`uploads: ${WIDTH}x${HEIGHT} JPEG of ${(photoBytes / 1e6).toFixed(1)} MB`);

      child = fork(
        fileURLToPath(new URL('./uploads-child.js', import.meta.url)),
        [bench.url, uploads],
        {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        },
      );
      const ready = await message(
        child,
        (m): m is { site: string; reference: string } =>
          typeof m === 'object' && m !== null && 'site' in m,
      );

      const times: number[] = [];
      let sizePath = '';
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await fetch(`${ready.site}/wp-json/wp/v2/media`, {
          method: 'POST',
          headers: {
            authorization,
            'content-type': 'image/jpeg',
            'content-disposition': `attachment; filename="photo-${i}.jpg"`,
            'content-length': String(photoBytes),
          },
          body: Readable.toWeb(createReadStream(photo)) as ReadableStream,
          duplex: 'half',
        } as RequestInit);
        const item = (await res.json()) as {
          media_details?: { sizes?: Record<string, { source_url: string }> };
        };
        times.push(performance.now() - started);
        const sizes = item.media_details?.sizes ?? {};
        if (res.status !== 201 || Object.keys(sizes).length !== 5) {
          throw new Error(
            `upload answered ${res.status} with sizes ${Object.keys(sizes).join(',')}`,
          );
        }
        sizePath = new URL(sizes.medium_large!.source_url).pathname;
      }
      child.send('rss');
      const { peakRss } = await message(
        child,
        (m): m is { peakRss: number } => typeof m === 'object' && m !== null && 'peakRss' in m,
      );

      const seconds = ctx.quick ? 2 : 5;
      const site: number[] = [];
      const bare: number[] = [];
      let failures = 0;
      for (let round = 0; round < 3; round++) {
        const s = await requestsPerSecond(`${ready.site}${sizePath}`, seconds);
        const r = await requestsPerSecond(`${ready.reference}${sizePath}`, seconds);
        site.push(s.rate);
        bare.push(r.rate);
        failures += s.non2xx + r.non2xx;
      }
      if (failures > 0) throw new Error(`${failures} failed requests under load`);
      const siteRate = median(site);
      const bareRate = median(bare);
      const rows: BenchRow[] = [
        {
          suite: SUITE,
          metric: `upload ${WIDTH}x${HEIGHT} JPEG (${(photoBytes / 1e6).toFixed(1)} MB) with scaled copy and 4 sizes, median of 3`,
          value: Math.round(median(times)),
          unit: 'ms',
        },
        {
          suite: SUITE,
          metric: 'peak RSS of the site process over the uploads',
          value: Math.round(peakRss / 1024 / 1024),
          unit: 'MB',
          target: '< 300 MB',
          pass: peakRss < RSS_LIMIT,
        },
        {
          suite: SUITE,
          metric: `GET a size (768x576) under load, 20 connections (reference: bare Node static server, same file)`,
          value: Math.round(siteRate),
          unit: 'req/s',
          reference: Math.round(bareRate),
          ratio: siteRate / bareRate,
          target: '>= 0.5x static',
          pass: siteRate >= 0.5 * bareRate,
        },
      ];
      return rows;
    } finally {
      if (child && child.exitCode === null) {
        child.send('exit');
        await new Promise((resolve) => child!.once('exit', resolve));
      }
      await bench.drop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
