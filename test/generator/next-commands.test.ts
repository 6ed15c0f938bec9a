import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { nextCommands } from '../../src/generator/next-commands.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { tempDir } from './support.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/generator/main.ts', import.meta.url));
const t = useTestDatabase();

beforeAll(() => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
  delete process.env.REDIS_URL;
});
afterEach(() => vi.restoreAllMocks());

/** Runs `emutrack <args>` in this process; its output is kept, not printed. */
async function emutrack(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return { code: await runCli(['node', 'emutrack', ...args]), stdout };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('npm run generate, then what it says to run', () => {
  it('prints the next commands, and each of them works on the dataset', async () => {
    const out = await tempDir();
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', MAIN, '--emus', '30', '--days', '2', '--start', '20260301', '--out', out],
      { encoding: 'utf8' },
    );
    const lines = stdout.trim().split('\n');
    expect(lines.slice(1)).toEqual(nextCommands(out, '20260301', 2));
    const commands = lines.filter((l) => l.startsWith('  npx emutrack '));
    expect(commands.map((c) => c.split(' ')[4])).toEqual([
      'import-fleet',
      'ingest-timetables',
      'ingest',
      'replay',
      'status',
      'export',
    ]);
    for (const command of commands) {
      // Paths here are plain words (no quoting needed): split as a shell would.
      const r = await emutrack(command.trim().split(/\s+/).slice(2));
      expect(r.code, command).toBe(0);
      if (command.includes(' replay '))
        expect(r.stdout).toContain('replay: 2 of 2 days done, 0 failed');
      if (command.includes(' export ')) expect(r.stdout.split('\n').length).toBeGreaterThan(10);
    }
  }, 120_000);

  it('quotes a path a shell would split', () => {
    expect(nextCommands("/tmp/my data/it's", '20260301', 1)[3]).toBe(
      `  npx emutrack ingest '/tmp/my data/it'\\''s/observations'`,
    );
  });
});
