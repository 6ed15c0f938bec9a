import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ISOLATED_TEST_FILES } from './isolated-test-files.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * What makes a file change the modules or globals the next file in a shared worker would see.
 * `// vitest: isolate` marks a file for a reason none of the others names.
 */
const MARKS: ReadonlyArray<[string, RegExp]> = [
  ['mocks a module or a global', /\bvi\.(mock|doMock|stubGlobal|stubEnv|spyOn)\(/],
  ['fakes timers', /\bvi\.(useFakeTimers|setSystemTime)\(/],
  [
    'writes process.env',
    /process\.env\.[A-Za-z_]+\s*=(?!=)|process\.env\[[^\]]+\]\s*=(?!=)|delete process\.env/,
  ],
  ['drives a client singleton', /from '@wordpress\/api-fetch'|from 'wpapi'/],
  ['says so', /\/\/ vitest: isolate/],
];

function testFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(rel);
    return rel.endsWith('.test.ts') ? [rel] : [];
  });
}

/** The file and the test helpers it imports (relative imports inside test/), transitively. */
function withTestImports(file: string): string[] {
  const seen = new Set<string>();
  const todo = [file];
  while (todo.length > 0) {
    const next = todo.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const text = readFileSync(path.join(root, next), 'utf8');
    for (const m of text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(next), `${m[1]}.ts`));
      if (target.startsWith('test/') && existsSync(path.join(root, target))) todo.push(target);
    }
  }
  return [...seen];
}

function marksOf(file: string): string[] {
  return withTestImports(file).flatMap((f) => {
    const text = readFileSync(path.join(root, f), 'utf8');
    return MARKS.filter(([, re]) => re.test(text)).map(([why]) => `${f}: ${why}`);
  });
}

describe('the test files that run in a fresh module graph', () => {
  const files = testFiles('test').filter((f) => f !== 'test/helpers/isolated-test-files.test.ts');

  it('hold every file that changes what a later file in its worker would see', () => {
    const missing = files
      .filter((f) => !ISOLATED_TEST_FILES.includes(f))
      .flatMap((f) => marksOf(f).map((why) => `${f} (${why})`));
    expect(missing).toEqual([]);
  });

  it('hold only files that exist and need it', () => {
    const needless = ISOLATED_TEST_FILES.filter(
      (f) => !files.includes(f) || marksOf(f).length === 0,
    );
    expect(needless).toEqual([]);
  });
});
