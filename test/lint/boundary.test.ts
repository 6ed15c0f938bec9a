import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The project's own eslint.config.js, linting fixture files given a path under src/domain/
// (they exist only here). The type-aware rules need files the TypeScript project knows, so they
// are off for these virtual files; the boundary rule needs no types.
const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-misused-promises': 'off',
    },
  },
});

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  const fatal = result!.messages.filter((m) => m.fatal);
  expect(fatal).toEqual([]);
  return result!.messages.map((m) => `${m.line}: ${m.ruleId}`);
}

const cleanDomainFile = [
  "import { z } from 'zod';",
  "import type { Queryable } from '../../shared/db/db.js';",
  "import { serviceDayOf } from '../../shared/time/service-day.js';",
  "import { buildDay } from '../records/build-daily-records.js';",
  'export const parts = [z, serviceDayOf, buildDay];',
  'export type Handle = Queryable;',
  '',
].join('\n');

describe('the domain/edge boundary in eslint.config.js', () => {
  it('fails a domain file that imports Fastify, even for a type', async () => {
    const code = [
      "import type { FastifyInstance } from 'fastify';",
      'export type App = FastifyInstance;',
      '',
    ].join('\n');
    expect(await boundaryErrors('src/domain/records/fixture-with-fastify.ts', code)).toEqual([
      '1: no-restricted-imports',
    ]);
  });

  it("fails Fastify's plugins, BullMQ, Redis, an HTTP edge and the worker", async () => {
    const code = [
      "import cookie from '@fastify/cookie';",
      "import { Queue } from 'bullmq';",
      "import { Redis } from 'ioredis';",
      "import { buildApp } from '../../http/api/app.js';",
      "export { allJobs } from '../../worker/jobs/index.js';",
      'export const parts = [cookie, Queue, Redis, buildApp];',
      '',
    ].join('\n');
    expect(await boundaryErrors('src/domain/ingest/fixture-with-edges.ts', code)).toEqual([
      '1: no-restricted-imports',
      '2: no-restricted-imports',
      '3: no-restricted-imports',
      '4: no-restricted-imports',
      '5: no-restricted-imports',
    ]);
  });

  it('passes a domain file that imports the domain, shared code and libraries', async () => {
    expect(await boundaryErrors('src/domain/exports/fixture-clean.ts', cleanDomainFile)).toEqual(
      [],
    );
  });

  it('leaves the edges free to import Fastify', async () => {
    const code = [
      "import type { FastifyInstance } from 'fastify';",
      "import { Queue } from 'bullmq';",
      'export type App = FastifyInstance;',
      'export const queue = Queue;',
      '',
    ].join('\n');
    expect(await boundaryErrors('src/http/api/fixture-edge.ts', code)).toEqual([]);
    expect(await boundaryErrors('src/worker/fixture-worker.ts', code)).toEqual([]);
  });
});

describe('the rest of the boundary in eslint.config.js', () => {
  it('fails a dynamic import() of what a static import may not name, in the domain', async () => {
    const code = [
      'export async function load() {',
      "  const { Queue } = await import('bullmq');",
      "  const { buildApp } = await import('../../http/api/app.js');",
      "  const { allJobs } = await import('../../../jobs/index.js');",
      "  const { z } = await import('zod');",
      "  const { serviceDayOf } = await import('../../shared/time/service-day.js');",
      '  return [Queue, buildApp, allJobs, z, serviceDayOf];',
      '}',
      '',
    ].join('\n');
    expect(await boundaryErrors('src/domain/records/fixture-dynamic.ts', code)).toEqual([
      '2: no-restricted-syntax',
      '3: no-restricted-syntax',
      '4: no-restricted-syntax',
    ]);
  });

  it('fails shared code that imports anything above it, statically or not', async () => {
    const code = [
      "import { buildDay } from '../../domain/records/build-daily-records.js';",
      "import type { ApiApp } from '../../http/api/services.js';",
      "import { JobQueues } from '../../worker/job-queues.js';",
      "import { runCli } from '../../cli/cli.js';",
      "import { allJobs } from '../../../jobs/index.js';",
      "import { toDate } from '../db/db.js';",
      'export type App = ApiApp;',
      "export const parts = [buildDay, JobQueues, runCli, allJobs, toDate, import('../../http/x.js')];",
      '',
    ].join('\n');
    expect(await boundaryErrors('src/shared/cache/fixture-above.ts', code)).toEqual([
      '1: no-restricted-imports',
      '2: no-restricted-imports',
      '3: no-restricted-imports',
      '4: no-restricted-imports',
      '5: no-restricted-imports',
      '8: no-restricted-syntax',
    ]);
  });

  it('fails an HTTP edge that imports the worker, and passes what it reads in shared code', async () => {
    const code = [
      "import type { JobQueues } from '../../worker/job-queues.js';",
      "import type { QueueList } from '../../shared/queues/open-queues.js';",
      "import { allJobs } from '../../../jobs/index.js';",
      'export type Queues = JobQueues | QueueList;',
      "export const parts = [allJobs, import('../../worker/worker-runtime.js')];",
      '',
    ].join('\n');
    expect(await boundaryErrors('src/http/ops/fixture-worker.ts', code)).toEqual([
      '1: no-restricted-imports',
      '5: no-restricted-syntax',
    ]);
  });

  it('fails a job that imports more than the domain, shared code and its own type', async () => {
    const code = [
      "import { z } from 'zod';",
      "import { buildDailyRecords } from '../src/domain/records/build-daily-records.js';",
      "import { serviceDayOf } from '../src/shared/time/service-day.js';",
      "import { defineJob } from '../src/worker/job-definition.js';",
      "import { nightlyServiceDay } from './nightly.js';",
      "import { JobQueues } from '../src/worker/job-queues.js';",
      "import { buildApp } from '../src/http/api/app.js';",
      "import { runCli } from '../src/cli/cli.js';",
      "import { Queue } from 'bullmq';",
      "import type { FastifyInstance } from 'fastify';",
      'export type App = FastifyInstance;',
      'export const parts = [z, buildDailyRecords, serviceDayOf, defineJob, nightlyServiceDay];',
      "export const more = [JobQueues, buildApp, runCli, Queue, import('../src/worker/x.js')];",
      '',
    ].join('\n');
    expect(await boundaryErrors('jobs/fixture-job.ts', code)).toEqual([
      '6: no-restricted-imports',
      '7: no-restricted-imports',
      '8: no-restricted-imports',
      '9: no-restricted-imports',
      '10: no-restricted-imports',
      '13: no-restricted-syntax',
    ]);
  });
});
