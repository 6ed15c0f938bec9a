import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A child process of the test and what it printed. */
export interface Child {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves once it has exited. */
  stop(): Promise<void>;
}

/** Polls until check() gives a value other than undefined/false, or fails after timeoutMs. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts support/<entry>.ts under tsx and waits until its stdout matches `ready`. */
export async function startChild(
  entry: 'api-child' | 'worker-child',
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: Child; match: RegExpMatchArray }> {
  const file = fileURLToPath(new URL(`./${entry}.ts`, import.meta.url));
  const proc = spawn(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const child: Child = {
    process: proc,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (!gone) proc.kill('SIGTERM');
      await exited;
    },
  };
  const match = await waitFor(`${entry} to be ready`, () => {
    if (gone) throw new Error(`${entry} exited early: ${err}`);
    return ready.exec(out) ?? undefined;
  });
  return { child, match };
}
