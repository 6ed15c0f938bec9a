import { readFile } from 'node:fs/promises';

/**
 * This process's peak resident set size in bytes: VmHWM from /proc (the true high-water mark),
 * or the current RSS where /proc is not available.
 */
export async function peakRssBytes(): Promise<number> {
  const status = await readFile('/proc/self/status', 'utf8').catch(() => '');
  const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
  return hwm ? Number(hwm[1]) * 1024 : process.memoryUsage().rss;
}
