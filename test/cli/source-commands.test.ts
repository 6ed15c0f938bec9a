import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { cli } from '../helpers/run-cli.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
const DAY = serviceDayFromYmd('20260814');
let server: http.Server;
let base: string;

/** One v2 page of one record for 20260814; any other day is empty; /broken answers 500. */
function page(date: string | null): string {
  const day = date === null ? 0 : serviceDayFromYmd(date);
  const items =
    day === DAY
      ? [
          {
            id: 7,
            serviceDay: DAY,
            timetableId: 3,
            emuId: 2,
            trainCode: { prefix: 'G', number: 7301 },
            status: 1,
          },
        ]
      : [];
  return JSON.stringify({
    ok: true,
    meta: { remain: 100, cost: 1 },
    data: {
      serviceDay: day,
      cursor: '',
      limit: 200,
      nextCursor: '',
      items,
      emuCodeMappings: items.length > 0 ? { '2': 'CRH2A-2010' } : {},
      timetableMappings: { '3': { startOffset: 36300 } },
    },
    error: '',
  });
}

beforeAll(async () => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/broken')) {
      res.writeHead(500).end('no');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(page(url.searchParams.get('date')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => vi.restoreAllMocks());

describe('emutrack source add / list / remove', () => {
  it('adds a source and lists it, with no key anywhere', async () => {
    const added = await cli(
      'source',
      'add',
      'peer',
      '--kind',
      'v2',
      '--url',
      `${base}/`,
      '--api-key-env',
      'PEER_KEY',
      '--every',
      '*/30 * * * *',
      '--rate',
      '2.5',
      '--trust',
      '0.5',
    );
    expect(added).toEqual({
      code: 0,
      stdout: `source peer added: v2 at ${base}, key from $PEER_KEY, 2.5 request(s)/s, trust 0.5, every "*/30 * * * *"\n`,
      stderr: '',
    });
    const list = await cli('source', 'list');
    expect(list.stdout).toBe(
      `peer  v2  ${base}  every: */30 * * * *  last success: never  lag: -  last error: -  taken 0, refused 0; 0 request(s), 0 429(s), 0 error(s)\n`,
    );
    const json = JSON.parse((await cli('source', 'list', '--json')).stdout) as Record<
      string,
      unknown
    >[];
    expect(json).toEqual([
      expect.objectContaining({
        name: 'peer',
        kind: 'v2',
        url: base,
        apiKeyEnv: 'PEER_KEY',
        schedule: '*/30 * * * *',
        rate: 2.5,
        trust: 0.5,
        lastSuccessAt: null,
        lagSeconds: null,
        lastError: null,
        linesTaken: 0,
        linesRefused: 0,
        requests: 0,
        refusals: 0,
        errors: 0,
      }),
    ]);
    const again = await cli('source', 'add', 'peer', '--kind', 'v2', '--url', base);
    expect(again).toMatchObject({
      code: 1,
      stderr: 'emutrack: a source named "peer" exists already\n',
    });
  });

  it.each([
    [['--url', 'not a url'], /^emutrack: --url: not a URL \(got "not a url"\)\n$/],
    [
      ['--url', 'ftp://example.org'],
      /^emutrack: --url: expected http:\/\/ or https:\/\/ \(got ftp:\)\n$/,
    ],
    [
      ['--url', 'https://me:secret@example.org'],
      /^emutrack: --url: must not carry a user or password/,
    ],
    [
      ['--url', 'https://example.org/?key=1'],
      /^emutrack: --url: must not have a query or a fragment\n$/,
    ],
    [['--kind', 'v1'], /^emutrack: --kind: unknown kind "v1" \(kinds: v2, railre, v2-feed\)\n$/],
    [
      ['--every', '61 * * * *'],
      /^emutrack: --every: not a cron pattern \(.+\) \(got "61 \* \* \* \*"\)\n$/,
    ],
    [['--rate', '0'], /^emutrack: --rate: expected a number > 0 \(got "0"\)\n$/],
    [['--rate', '-1'], /^emutrack: --rate: expected a number \(got "-1"\)\n$/],
    [['--rate', 'fast'], /^emutrack: --rate: expected a number \(got "fast"\)\n$/],
    [['--trust', 'x'], /^emutrack: --trust: expected a number \(got "x"\)\n$/],
    [
      ['--api-key-env', 'sk-live-123'],
      /^emutrack: --api-key-env: expected the NAME of an environment variable/,
    ],
  ])('refuses %j naming the option', async (args, message) => {
    const opts = new Map<string, string>([
      ['--kind', 'v2'],
      ['--url', 'https://example.org'],
    ]);
    for (let i = 0; i < args.length; i += 2) opts.set(args[i]!, args[i + 1]!);
    const r = await cli('source', 'add', 'bad', ...[...opts].flat());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect((await cli('source', 'list')).stdout).not.toContain('bad');
  });

  it('refuses a bad name and a missing --url', async () => {
    const r = await cli('source', 'add', 'no spaces', '--kind', 'v2', '--url', base);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^emutrack: NAME: expected 1-48 letters/);
    const missing = await cli('source', 'add', 'x', '--kind', 'v2');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("required option '--url <base-url>' not specified");
  });

  it('removes a source; an unknown one is an error', async () => {
    expect((await cli('source', 'add', 'gone', '--kind', 'v2', '--url', base)).code).toBe(0);
    expect(await cli('source', 'remove', 'gone')).toEqual({
      code: 0,
      stdout: 'source gone removed\n',
      stderr: '',
    });
    expect(await cli('source', 'remove', 'gone')).toMatchObject({
      code: 1,
      stderr: 'emutrack: no source named "gone"\n',
    });
  });
});

describe('emutrack source pull', () => {
  it('pulls a range in this process and says which days to rebuild', async () => {
    expect(
      (await cli('source', 'add', 'open', '--kind', 'v2', '--url', base, '--rate', '50')).code,
    ).toBe(0);
    const r = await cli('source', 'pull', 'open', '--from', '20260813', '--to', '20260814');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^source open: 2 day\(s\), 2 page\(s\), taken 1, duplicate 0, refused 0; 2 request\(s\), 0 refused by the server \(429\), waited \d+ s\n/,
    );
    expect(r.stdout).toContain(
      'new sightings on 20260814: the worker rebuilds these days (or emutrack replay --from 20260814 --to 20260814)',
    );
    const list = await cli('source', 'list');
    expect(list.stdout).toMatch(
      /^open {2}v2 .* last success: 20\d\d-\d\d-\d\d .* lag: \d+ s {2}last error: - {2}taken 1, refused 0; 2 request\(s\), 0 429\(s\), 0 error\(s\)$/m,
    );
    // The lag is counted on the database's clock: a success two hours ago reads so, here and in
    // emutrack status (human and JSON).
    await t.current.db.query(
      "UPDATE sources SET last_success_at = now() - interval '2 hours 5 minutes' WHERE name = 'open'",
    );
    expect((await cli('source', 'list')).stdout).toMatch(/^open .* lag: 2 h 05 min {2}/m);
    expect((await cli('status')).stdout).toMatch(
      /^ {2}open +v2 {4} {2}lag 2 h 05 min {2}taken 1, refused 0; 2 request\(s\), 0 429\(s\), 0 error\(s\)$/m,
    );
    const status = JSON.parse((await cli('status', '--json')).stdout) as {
      sources: { name: string; lagSeconds: number; requests: number }[];
    };
    const open = status.sources.find((x) => x.name === 'open');
    expect(open).toMatchObject({ requests: 2 });
    expect(open!.lagSeconds).toBeGreaterThanOrEqual(7500);
    expect(open!.lagSeconds).toBeLessThan(7560);
    const obs = await t.current.db.query<{
      train_code: string;
      emu_code: string;
      ref: string;
      service_day: number;
    }>("SELECT train_code, emu_code, ref, service_day FROM observations WHERE source = 'open'");
    expect(obs.rows).toEqual([
      { train_code: 'G7301', emu_code: 'CRH2A-2010', ref: '7', service_day: DAY },
    ]);
  });

  it('exits non-zero with one line naming the source when the server fails', async () => {
    expect(
      (await cli('source', 'add', 'broken', '--kind', 'v2', '--url', `${base}/broken`)).code,
    ).toBe(0);
    const r = await cli('source', 'pull', 'broken', '--from', '20260814', '--to', '20260814');
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter(Boolean).at(-1)).toBe(
      `emutrack: source broken: 20260814: GET ${base}/broken/api/v2/records/daily?date=20260814&limit=200: HTTP 500`,
    );
    expect((await cli('source', 'list')).stdout).toMatch(
      /^broken .* lag: - {2}last error: source broken: 20260814: GET .*: HTTP 500 {2}taken 0, refused 0; 1 request\(s\), 0 429\(s\), 1 error\(s\)$/m,
    );
  });

  it('refuses an unknown source, a bad day, and a range the wrong way round', async () => {
    expect(await cli('source', 'pull', 'nobody')).toMatchObject({
      code: 1,
      stderr: 'emutrack: no source named "nobody"\n',
    });
    const bad = await cli('source', 'pull', 'open', '--from', '2026-08-14', '--to', '20260814');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--from <YYYYMMDD>.*expected YYYYMMDD/);
    expect(
      await cli('source', 'pull', 'open', '--from', '20260814', '--to', '20260813'),
    ).toMatchObject({
      code: 2,
      stderr: 'emutrack: --to is before --from\n',
    });
    expect(await cli('source', 'pull', 'open', '--from', '20260814')).toMatchObject({
      code: 2,
      stderr: 'emutrack: --from and --to go together\n',
    });
  });

  it('refuses days for a source that follows a change feed, naming the option', async () => {
    const added = await cli('source', 'add', 'feedy', '--kind', 'v2-feed', '--url', base);
    expect(added.code).toBe(0);
    expect(
      await cli('source', 'pull', 'feedy', '--from', '20260814', '--to', '20260814'),
    ).toMatchObject({
      code: 2,
      stderr:
        'emutrack: --from: source feedy follows a change feed from its own cursor; it takes no days (pull without --from and --to)\n',
    });
    expect((await cli('source', 'remove', 'feedy')).code).toBe(0);
  });

  it('fails with the variable named when the key is not in the environment', async () => {
    await cli(
      'source',
      'add',
      'keyed',
      '--kind',
      'v2',
      '--url',
      base,
      '--api-key-env',
      'EMUTRACK_TEST_ABSENT_KEY',
    );
    delete process.env.EMUTRACK_TEST_ABSENT_KEY;
    expect(
      await cli('source', 'pull', 'keyed', '--from', '20260814', '--to', '20260814'),
    ).toMatchObject({
      code: 1,
      stderr:
        'emutrack: source keyed: environment variable EMUTRACK_TEST_ABSENT_KEY (its API key) is not set\n',
    });
  });
});
