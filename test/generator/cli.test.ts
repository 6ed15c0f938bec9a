import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './support.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/generator/main.ts', import.meta.url));

function generateCli(args: string[]) {
  return run(process.execPath, ['--import', 'tsx', MAIN, ...args], { encoding: 'utf8' });
}

describe('generate CLI', () => {
  it('writes a dataset and reports what it wrote', async () => {
    const out = await tempDir();
    const { stdout } = await generateCli([
      '--emus',
      '40',
      '--days',
      '2',
      '--seed',
      '9',
      '--start',
      '20260301',
      '--missing-rate',
      '0',
      '--out',
      out,
    ]);
    expect(stdout).toMatch(/^wrote .*: 40 EMUs, \d+ circulations/);
    const manifest = JSON.parse(await readFile(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ seed: 9, emus: 40, days: 2, start: '20260301' });
    expect(manifest.options.missingRate).toBe(0);
    expect(manifest.files[0].path).toBe('observations/20260301.ndjson');
  });

  it('refuses a bad option with a message naming it', async () => {
    const out = await tempDir();
    const bad = generateCli(['--emus', '40', '--days', '1', '--start', '2026-03-01', '--out', out]);
    await expect(bad).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/start: /) });
    const notShare = generateCli(['--emus', '4', '--days', '1', '--wrong-rate', '5', '--out', out]);
    await expect(notShare).rejects.toMatchObject({
      stderr: expect.stringMatching(/--wrong-rate/),
    });
  });
});
