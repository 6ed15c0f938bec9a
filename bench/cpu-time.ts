import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { median } from './repeat.js';

/**
 * CPU time spent by the processes a benchmark round involves, from /proc (Linux): what a
 * request costs each of them, and so what bounds a ratio when the machine's cores, shared by the
 * load generator, the app and Postgres, are what runs out. Throughput alone cannot tell a slow
 * path from a busy machine; CPU per request can.
 */

/** Clock ticks per second of /proc's utime and stime (getconf CLK_TCK; 100 on Linux). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of one process in ms, and its command name; undefined once it has gone. */
export async function processCpu(pid: number): Promise<{ comm: string; ms: number } | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  // "pid (comm) state ...": comm may hold spaces and parentheses, so split at the last ")".
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const fields = stat.slice(close + 2).split(' ');
  // Fields 14 and 15 of proc(5), counted from the state (field 3) at index 0.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { comm, ms: (ticks * 1000) / TICKS_PER_SECOND };
}

/** Every Postgres server process's CPU time, by pid (backends, walwriter, checkpointer...). */
async function postgresCpu(): Promise<Map<number, number>> {
  const byPid = new Map<number, number>();
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  await Promise.all(
    pids.map(async (pid) => {
      const cpu = await processCpu(pid);
      if (cpu?.comm === 'postgres') byPid.set(pid, cpu.ms);
    }),
  );
  return byPid;
}

/** CPU ms spent during a stretch of load, by whom. */
export interface CpuSpent {
  /** The server process named at start (the app or the bare route). */
  server: number;
  /** Postgres's processes that lived through the stretch (a connection's life is the pool's). */
  postgres: number;
  /** This process: the load generator (autocannon's worker thread) or the SQL floor's client. */
  self: number;
}

/** Starts counting; the returned function gives what was spent since. */
export async function startCpuCount(serverPid?: number): Promise<() => Promise<CpuSpent>> {
  const server0 = serverPid === undefined ? 0 : ((await processCpu(serverPid))?.ms ?? 0);
  const postgres0 = await postgresCpu();
  const self0 = process.cpuUsage();
  return async () => {
    const self = process.cpuUsage(self0);
    const server = serverPid === undefined ? 0 : ((await processCpu(serverPid))?.ms ?? 0);
    let postgres = 0;
    for (const [pid, ms] of await postgresCpu()) {
      const before = postgres0.get(pid);
      if (before !== undefined) postgres += ms - before;
    }
    return { server: server - server0, postgres, self: (self.user + self.system) / 1000 };
  };
}

/** Microseconds per request of each part. */
export function perRequestUs(spent: CpuSpent, requests: number): CpuSpent {
  const us = (ms: number) => (requests > 0 ? (ms * 1000) / requests : 0);
  return { server: us(spent.server), postgres: us(spent.postgres), self: us(spent.self) };
}

/** All the CPU a request costs the machine: server, Postgres and this process (us). */
export const totalUs = (cpu: CpuSpent): number => cpu.server + cpu.postgres + cpu.self;

/** The median over rounds of one part of their CPU per request, in whole microseconds. */
export function medianUs(
  rounds: ReadonlyArray<{ cpu: CpuSpent }>,
  part: (cpu: CpuSpent) => number,
): number {
  return Math.round(median(rounds.map((r) => part(r.cpu))));
}
