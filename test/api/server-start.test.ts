import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm start` and `npm run site` as a newcomer runs them (their entry points, through tsx), on
 * the embedded database: one `npm start` serves the API and the site, and every mistake a
 * person can make at start (a second server on the embedded database, a port in use, a bad
 * value) ends in one line on stderr that says what to do, never a stack trace.
 */
const entry = (p: string) => fileURLToPath(new URL(`../../src/http/${p}`, import.meta.url));
const API = entry('api/server.ts');
const SITE = entry('site/server.ts');

interface Run {
  exited: Promise<number | null>;
  output: () => string;
  stderr: () => string;
  kill: (signal: NodeJS.Signals) => void;
}

const running: Run[] = [];
function start(main: string, vars: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...vars },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const run = {
    exited,
    output: () => out + err,
    stderr: () => err,
    kill: (s: NodeJS.Signals) => child.kill(s),
  };
  running.push(run);
  return run;
}

async function until(what: string, ok: () => boolean, run: Run, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A port nothing listens on (as the system hands them out). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** stderr (at LOG_LEVEL warn: no log lines) is one line, and no stack frame. */
function expectOneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

let dataDir: string;
let api: Run;
let port: number;
let sitePort: number;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-serve-'));
  port = await freePort();
  sitePort = await freePort();
  api = start(API, {
    DATA_DIR: dataDir,
    PORT: String(port),
    SITE_PORT: String(sitePort),
    SITE_SEED_DOCS: 'false',
  });
  await until('the API and the site', () => /site ready/.test(api.output()), api);
}, 180_000);
afterAll(async () => {
  for (const r of running) r.kill('SIGKILL');
  await Promise.all(running.map((r) => r.exited));
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start on the embedded database', () => {
  it('serves the API and the documentation site from one process', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const root = await fetch(`http://127.0.0.1:${sitePort}/wp-json/`);
    expect(root.status).toBe(200);
    expect(((await root.json()) as { name: string }).name).toBeTruthy();
  });

  it('npm run site beside it: one line saying the database is busy and what to do', async () => {
    const site = start(SITE, {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PORT: String(port),
      SITE_PORT: String(await freePort()),
    });
    expect(await site.exited).toBe(1);
    expect(expectOneLine(site.stderr())).toMatch(
      /^emutrack site: the embedded database at .* is in use by another emutrack process .*npm start. serves the documentation site too/,
    );
  }, 120_000);
});

describe('a failed start is one line naming what to do', () => {
  it('a port in use (the first server stopped cleanly, its database free again)', async () => {
    api.kill('SIGTERM');
    expect(await api.exited).toBe(0);
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(port, '127.0.0.1', r));
    try {
      for (const [variable, vars] of [
        ['PORT', { PORT: String(port), SITE_PORT: String(await freePort()) }],
        ['SITE_PORT', { PORT: String(await freePort()), SITE_PORT: String(port) }],
      ] as const) {
        const run = start(API, { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...vars });
        expect(await run.exited).toBe(1);
        expect(expectOneLine(run.stderr())).toBe(
          `emutrack api: port ${port} (${variable}) is in use by another process: stop it, or set ${variable} to a free port`,
        );
      }
    } finally {
      await new Promise((r) => holder.close(r));
    }
  }, 180_000);

  it.each([
    ['npm start', 'PORT', 'lots'],
    ['npm run site', 'SITE_PORT', '70000'],
    ['npm start', 'DATABASE_URL', 'mysql://localhost/x'],
  ])(
    '%s with a bad %s',
    async (command, variable, value) => {
      const run = start(command === 'npm start' ? API : SITE, {
        DATA_DIR: dataDir,
        [variable]: value,
      });
      expect(await run.exited).toBe(2);
      expect(expectOneLine(run.stderr())).toMatch(new RegExp(`^configuration: ${variable}: `));
    },
    60_000,
  );
});
