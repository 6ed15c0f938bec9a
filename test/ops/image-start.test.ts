import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, chown, cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/test-db.js';
import { readRuntimeStage } from './dockerfile.js';

/**
 * The image's own command, started the way the image starts it: as a user who does not own the
 * application directory (root-owned /app, as the Dockerfile leaves it), with the image's
 * environment, against this test's database. The image's data directory is played by a
 * directory owned by that user (the named volume, which takes the image's ownership).
 * Before the fix the API answered /.well-known/jwks.json with 500 EACCES: it tried to write
 * the generated OAuth key secret into ./.data inside /app.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const database = useTestDatabase();
const stage = readRuntimeStage(ROOT);
let dir: string;
let app: string;
let data: string;
let child: ChildProcess | undefined;
let output = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The command as the image's user: `nobody` when we are root, else ourselves (app read-only). */
function asImageUser(command: string[]): [string, string[]] {
  if (!asRoot) return [command[0]!, command.slice(1)];
  const setpriv = ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups'];
  return ['setpriv', [...setpriv, '--', ...command]];
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-image-'));
  await chmod(dir, 0o755);
  app = path.join(dir, 'app');
  data = path.join(dir, 'data');
  await mkdir(app);
  await mkdir(data);
  await mkdir(path.join(dir, 'inbox'));
  // What the final stage copies, built the way the build stage builds it.
  const build = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      path.join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      path.join(app, 'dist'),
      '--tsBuildInfoFile',
      path.join(dir, 'tsbuildinfo'),
    ],
    { encoding: 'utf8' },
  );
  expect(build.status, build.stdout + build.stderr).toBe(0);
  await symlink(path.join(ROOT, 'node_modules'), path.join(app, 'node_modules'));
  for (const { from, to, stage: fromStage } of stage.copied) {
    if (from === 'node_modules' || from.startsWith('/app/node_modules') || from === '/app/dist')
      continue;
    const source = path.join(ROOT, fromStage ? from.replace(/^\/app\//, '') : from);
    if (!existsSync(source)) continue; // e.g. docs/ before it is written
    const target = path.join(app, to === './' ? path.basename(from) : to);
    await cp(source, target, { recursive: true });
  }
  if (asRoot) {
    await chown(data, NOBODY, NOBODY);
    await chown(path.join(dir, 'inbox'), NOBODY, NOBODY);
  } else {
    await chmod(app, 0o555);
  }
}, 240_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (!asRoot) await chmod(app, 0o755);
  await rm(dir, { recursive: true, force: true });
});

describe("the image's command as a user who does not own the app directory", () => {
  it('starts, serves /.well-known/jwks.json (200) and passes its own healthcheck', async () => {
    const port = await freePort();
    const mapped = (value: string) =>
      value === stage.env.DATA_DIR
        ? data
        : value === stage.env.INBOX_DIR
          ? path.join(dir, 'inbox')
          : value;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...Object.fromEntries(Object.entries(stage.env).map(([k, v]) => [k, mapped(v)])),
      DATABASE_URL: database.current.url,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
    };
    const [command, args] = asImageUser(['node', ...stage.cmd.slice(1)]);
    expect(stage.cmd[0]).toBe('node');
    child = spawn(command, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let announce: () => void;
    const ready = new Promise<void>((resolve) => (announce = resolve));
    // The logger writes to stderr or stdout: either way, "API ready" is the signal.
    const collect = (b: Buffer) => {
      output += b.toString();
      if (output.includes('API ready')) announce();
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('no "API ready" within 50 s'), 50_000);
    });
    const outcome = await Promise.race([
      ready.then(() => 'ready'),
      exited.then((c) => `exit ${c}`),
      waited,
    ]);
    clearTimeout(timer);
    expect(outcome, output).toBe('ready');

    const jwks = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`);
    expect(jwks.status, output).toBe(200);
    const body = (await jwks.json()) as { keys: { kid: string }[] };
    expect(body.keys.length).toBeGreaterThan(0);
    // The secret went to the data directory, written by the image's user, nowhere else.
    expect(existsSync(path.join(data, 'oauth-key-secret'))).toBe(true);
    expect(existsSync(path.join(app, '.data'))).toBe(false);

    const [hc, hcArgs] = asImageUser(['node', ...stage.healthcheck!.slice(1)]);
    const health = spawnSync(hc, hcArgs, { cwd: app, env, encoding: 'utf8' });
    expect(health.status, health.stderr).toBe(0);
    expect(health.stdout).toContain('answered 200');
  }, 90_000);
});
