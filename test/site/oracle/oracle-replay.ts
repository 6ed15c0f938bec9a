import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { OracleClient } from './oracle-client.js';
import { buildCorpus, CATEGORIES, type CorpusRequest } from './oracle-corpus.js';
import { IdNames, normaliseAnswer, type NormalisedAnswer } from './oracle-normalise.js';
import { collectIds, seedSite } from './oracle-seed.js';

export const ORACLE_DIR = path.dirname(fileURLToPath(import.meta.url));
export const GOLDEN_DIR = path.join(ORACLE_DIR, 'golden');
export const ALLOW_LIST = path.join(ORACLE_DIR, 'known-differences.json');

/** Seeds a site, then replays the whole corpus in order; answers normalised, by request id. */
export async function seedAndReplay(
  client: OracleClient,
  corpus: CorpusRequest[] = buildCorpus(),
): Promise<Map<string, NormalisedAnswer>> {
  await seedSite(client);
  const names = new IdNames(await collectIds(client));
  const out = new Map<string, NormalisedAnswer>();
  for (const request of corpus) {
    const query = names.resolve(request.query);
    const answer = await client({
      method: request.method,
      path: names.resolve(request.path),
      query,
      caller: request.caller,
      ...(request.body
        ? { body: JSON.parse(names.resolve(JSON.stringify(request.body))) as unknown }
        : {}),
    });
    // Through JSON, as the golden files are (an undefined field is no field).
    const normalised = normaliseAnswer(answer, names, names.resolve(request.path));
    out.set(request.id, JSON.parse(JSON.stringify(normalised)) as NormalisedAnswer);
  }
  return out;
}

/** One golden file per category: `{"<request id>": answer, ...}`, one request a line. */
export async function writeGolden(answers: Map<string, NormalisedAnswer>): Promise<void> {
  const corpus = buildCorpus();
  for (const category of CATEGORIES) {
    const lines = corpus
      .filter((r) => r.category === category)
      .map((r) => `${JSON.stringify(r.id)}:${JSON.stringify(answers.get(r.id) ?? null)}`);
    await writeFile(path.join(GOLDEN_DIR, `${category}.json`), `{\n${lines.join(',\n')}\n}\n`);
  }
}

export async function readGolden(category: string): Promise<Record<string, NormalisedAnswer>> {
  return JSON.parse(await readFile(path.join(GOLDEN_DIR, `${category}.json`), 'utf8')) as Record<
    string,
    NormalisedAnswer
  >;
}

/** The checked-in allow-list: request id -> why it still differs from WordPress 6.1. */
export async function readKnownDifferences(): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(ALLOW_LIST, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

export interface CategoryResult {
  category: string;
  requests: number;
  differing: string[];
}

export async function compareWithGolden(
  answers: Map<string, NormalisedAnswer>,
): Promise<CategoryResult[]> {
  const corpus = buildCorpus();
  const results: CategoryResult[] = [];
  for (const category of CATEGORIES) {
    const golden = await readGolden(category);
    const requests = corpus.filter((r) => r.category === category);
    results.push({
      category,
      requests: requests.length,
      differing: requests
        .filter((r) => !isDeepStrictEqual(golden[r.id], answers.get(r.id)))
        .map((r) => r.id),
    });
  }
  return results;
}

export function formatTable(results: CategoryResult[]): string {
  const rows = results.map((r) => [r.category, String(r.requests), String(r.differing.length)]);
  const total = results.reduce((n, r) => n + r.requests, 0);
  const differing = results.reduce((n, r) => n + r.differing.length, 0);
  rows.push([
    '**total**',
    String(total),
    `${differing} (${((100 * differing) / Math.max(total, 1)).toFixed(1)}%)`,
  ]);
  return [
    '| category | requests | differing |',
    '| --- | ---: | ---: |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** For a report: where one answer differs from the golden one, the first differing paths. */
export function describeDifference(
  expected: unknown,
  actual: unknown,
  at = '',
  out: string[] = [],
): string[] {
  if (out.length >= 6) return out;
  if (isDeepStrictEqual(expected, actual)) return out;
  if (
    expected &&
    actual &&
    typeof expected === 'object' &&
    typeof actual === 'object' &&
    Array.isArray(expected) === Array.isArray(actual)
  ) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const k of keys) {
      describeDifference(
        (expected as Record<string, unknown>)[k],
        (actual as Record<string, unknown>)[k],
        `${at}.${k}`,
        out,
      );
    }
    return out;
  }
  out.push(
    `${at || '.'}: WordPress ${JSON.stringify(expected)?.slice(0, 120)}, here ${JSON.stringify(actual)?.slice(0, 120)}`,
  );
  return out;
}
