import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { OracleClient } from './oracle-client.js';
import { comparable } from './oracle-compare.js';
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
  /** For each differing request, where the compared answers differ (describeDifference). */
  differences: Record<string, string[]>;
}

/**
 * Each category's requests whose answer differs from WordPress's golden one, both compared
 * after the compare-time rules (oracle-compare.ts).
 */
export async function compareWithGolden(
  answers: Map<string, NormalisedAnswer>,
): Promise<CategoryResult[]> {
  const corpus = buildCorpus();
  const results: CategoryResult[] = [];
  for (const category of CATEGORIES) {
    const golden = await readGolden(category);
    const requests = corpus.filter((r) => r.category === category);
    const differences: Record<string, string[]> = {};
    for (const r of requests) {
      const expected = comparable(r, golden[r.id]!);
      const actual = comparable(r, answers.get(r.id)!);
      if (!isDeepStrictEqual(expected, actual)) {
        differences[r.id] = describeDifference(expected, actual);
      }
    }
    results.push({
      category,
      requests: requests.length,
      differing: Object.keys(differences),
      differences,
    });
  }
  return results;
}

/** How a differing request is counted in the table, by the reason the allow-list gives it. */
export type DifferenceKind = 'deliberate' | 'beyond 6.1' | 'open';

/**
 * `choice: ...` and `oracle: ...` are deliberate, `beyond 6.1: ...` is the spec asking for what
 * a WordPress after 6.1 does, anything else (`open: ...`, or a request not listed) is open.
 */
export function kindOfReason(reason: string | undefined): DifferenceKind {
  if (reason === undefined) return 'open';
  if (/^beyond 6\.1\b/.test(reason)) return 'beyond 6.1';
  if (/^(choice|oracle)\b/.test(reason)) return 'deliberate';
  return 'open';
}

/**
 * The differential's table (markdown): per category the requests, those differing and, of
 * these, how many are deliberate, beyond 6.1 or open (by their reason in `known`).
 */
export function formatTable(results: CategoryResult[], known: Record<string, string> = {}): string {
  const percent = (n: number, of: number) => `${((100 * n) / Math.max(of, 1)).toFixed(1)}%`;
  const count = (ids: string[], kind: DifferenceKind) =>
    ids.filter((id) => kindOfReason(known[id]) === kind).length;
  const row = (name: string, requests: number, differing: string[], total = false) => {
    const cells = [
      String(requests),
      total
        ? `${differing.length} (${percent(differing.length, requests)})`
        : String(differing.length),
      String(count(differing, 'deliberate')),
      String(count(differing, 'beyond 6.1')),
      String(count(differing, 'open')),
    ];
    return total
      ? `| **${name}** | ${cells.map((c) => `**${c}**`).join(' | ')} |`
      : `| ${name} | ${cells.join(' | ')} |`;
  };
  return [
    '| category | requests | differing | deliberate | beyond 6.1 | open |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...results.map((r) => row(r.category, r.requests, r.differing)),
    row(
      'total',
      results.reduce((n, r) => n + r.requests, 0),
      results.flatMap((r) => r.differing),
      true,
    ),
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
