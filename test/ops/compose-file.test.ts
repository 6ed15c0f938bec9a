import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readRuntimeStage } from './dockerfile.js';

/**
 * docker-compose.yml and the Dockerfile as shipped, checked by structure (the machine has no
 * Docker daemon, and Debian carries no `docker compose` plugin: only the old Python
 * docker-compose 1.x, which is not what users run).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  environment?: Record<string, string | number>;
  volumes?: string[];
  healthcheck?: { test: string[]; interval?: string; retries?: number };
  depends_on?: Record<string, { condition: string }>;
}
interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), {
  merge: true,
}) as Compose;
const image = readRuntimeStage(ROOT);
const APP_SERVICES = ['api', 'worker', 'site'];

/** A `node <flags> dist/x.js` command's script, as the TypeScript source it is built from. */
function sourceOf(command: string[]): string {
  const script = command.find((a) => a.endsWith('.js'))!;
  return path.join(ROOT, script.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
}

describe('docker-compose.yml', () => {
  it('has the five services, each restarting and with a healthcheck', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'api',
      'postgres',
      'redis',
      'site',
      'worker',
    ]);
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.restart, name).toMatch(/^(always|unless-stopped)$/);
      expect(service.healthcheck?.test?.[0], name).toMatch(/^CMD(-SHELL)?$/);
    }
  });

  it("runs each app service's command from a built entry point, its healthcheck too", () => {
    for (const name of APP_SERVICES) {
      const service = compose.services[name]!;
      expect(service.build, name).toBe('.');
      expect(existsSync(sourceOf(service.command!)), `${name} command`).toBe(true);
      const check = service.healthcheck!.test;
      expect(check.slice(0, 2), name).toEqual(['CMD', 'node']);
      expect(existsSync(sourceOf(check)), `${name} healthcheck`).toBe(true);
      expect(check.at(-1), name).toBe(name);
      expect(service.depends_on?.postgres?.condition, name).toBe('service_healthy');
    }
    expect(existsSync(sourceOf(image.cmd))).toBe(true);
    expect(existsSync(sourceOf(image.healthcheck!))).toBe(true);
  });

  it("gives the API, worker and site one writable data volume at the image's DATA_DIR", () => {
    const dataDir = image.env.DATA_DIR!;
    expect(dataDir).toMatch(/^\//);
    // Not under the root-owned app directory, and made for the user the image runs as.
    expect(dataDir.startsWith(`${image.workdir}/`)).toBe(false);
    expect(image.user).toBe('node');
    expect(image.ownedByUser).toContain(dataDir);
    for (const name of APP_SERVICES) {
      const service = compose.services[name]!;
      expect(service.environment?.DATA_DIR ?? dataDir, name).toBe(dataDir);
      expect(service.volumes, name).toContain(`data:${dataDir}`);
    }
    expect(Object.keys(compose.volumes)).toContain('data');
    // Uploads default to DATA_DIR/uploads: on the volume unless moved off it.
    expect(compose.services.site!.environment?.MEDIA_UPLOADS_DIR).toBeUndefined();
  });

  it("gives the worker's inbox a volume owned by the image's user", () => {
    const inbox = image.env.INBOX_DIR!;
    expect(compose.services.worker!.environment?.INBOX_DIR).toBe(inbox);
    expect(compose.services.worker!.volumes).toContain(`inbox:${inbox}`);
    expect(image.ownedByUser).toContain(inbox);
  });

  it('shares one OAUTH_KEY_SECRET between the API and the site (and the worker)', () => {
    const secrets = APP_SERVICES.map(
      (name) => compose.services[name]!.environment?.OAUTH_KEY_SECRET,
    );
    expect(new Set(secrets).size).toBe(1);
    // From .env or the environment; unset, the shared volume's generated file is the one secret.
    expect(secrets[0]).toBe('${OAUTH_KEY_SECRET:-}');
  });

  it('builds on the Node major of package.json engines', () => {
    const engines = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        engines: { node: string };
      }
    ).engines.node;
    const major = /(\d+)/.exec(engines)![1];
    expect(image.from).toBe(`node:${major}-bookworm-slim`);
  });

  it('copies into the image every file the site reads at start', () => {
    const copied = image.copied.map((c) => c.from);
    for (const needed of ['README.md', 'migrations', 'package.json'])
      expect(copied, needed).toContain(needed);
  });
});
