import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `docker compose run --rm worker npx emutrack ...`, as the docs give it: npx runs the image's
 * own package bin, installing the package into its cache first, which runs the package's
 * `prepare` script (the build). The image has no compiler, so with `prepare` left in its
 * package.json every such command failed. Played here in a directory laid out as the image's
 * /app: its package.json as the final stage leaves it (the stage's `npm pkg` lines applied), and
 * a stand-in for the built CLI; npx offline, with a fresh cache, as in a new container.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let dir: string | undefined;
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

/** The final stage's RUN lines that edit package.json (`npm pkg ...`). */
async function packageEdits(): Promise<string[]> {
  const text = (await readFile(path.join(ROOT, 'Dockerfile'), 'utf8')).replace(/\\\n/g, ' ');
  const stages = text.split(/^FROM\s/m);
  return stages
    .at(-1)!
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^RUN\s+npm\s+pkg\s/.test(l))
    .map((l) => l.replace(/^RUN\s+/, ''));
}

describe("the image's npx emutrack", () => {
  it('runs the built CLI, without building or the network', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-image-npx-'));
    const app = path.join(dir, 'app');
    await mkdir(path.join(app, 'dist/src/cli'), { recursive: true });
    await cp(path.join(ROOT, 'package.json'), path.join(app, 'package.json'));
    await cp(path.join(ROOT, 'bin'), path.join(app, 'bin'), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules'), path.join(app, 'node_modules'));
    await writeFile(
      path.join(app, 'dist/src/cli/main.js'),
      "process.stdout.write(`the CLI ran: ${process.argv.slice(2).join(' ')}\\n`);\n",
    );
    for (const edit of await packageEdits()) {
      const r = spawnSync('sh', ['-c', edit], { cwd: app, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    }
    const run = spawnSync('npx', ['--offline', 'emutrack', 'status'], {
      cwd: app,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: path.join(dir, 'home'),
        NODE_ENV: 'production',
        npm_config_update_notifier: 'false',
      },
      timeout: 120_000,
    });
    expect(run.stdout, run.stderr).toContain('the CLI ran: status');
    expect(run.status).toBe(0);
  }, 150_000);
});
