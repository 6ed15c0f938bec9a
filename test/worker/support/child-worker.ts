import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../../src/shared/db/db.js';
import { waitFor } from './wait-for.js';

const ENTRY = fileURLToPath(new URL('./worker-child.ts', import.meta.url));

export interface ChildWorker {
  process: ChildProcess;
  /** Postgres application_name of its connections. */
  appName: string;
  /** Resolves with the exit code (or signal) when it exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Starts test/worker/support/worker-child.ts and waits until its workers are ready. */
export async function startChildWorker(env: Record<string, string>): Promise<ChildWorker> {
  const appName = `emutrack-child-${randomBytes(4).toString('hex')}`;
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    env: { ...process.env, ...env, CHILD_APP_NAME: appName },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  await waitFor(
    'the child worker to be ready',
    () => {
      if (gone) throw new Error(`child worker exited early: ${err}`);
      return out.includes('ready\n');
    },
    { timeoutMs: 60_000 },
  );
  return { process: child, appName, exited, stderr: () => err };
}

/** Waits until one of the child's connections sits in pg_sleep: it is inside a build. */
export async function waitUntilChildSleepsInBuild(db: Db, child: ChildWorker): Promise<void> {
  await waitFor('the child to be inside a build', async () => {
    const r = await db.query(
      `SELECT 1 FROM pg_stat_activity
        WHERE application_name = $1 AND state = 'active' AND query LIKE 'SELECT pg_sleep%'`,
      [child.appName],
    );
    return r.rowCount > 0;
  });
}

/** How many connections the child (alive or dead) still has open in Postgres. */
export async function childBackends(db: Db, child: ChildWorker): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
    [child.appName],
  );
  return r.rows[0]!.n;
}
