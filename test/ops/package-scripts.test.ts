import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every `node dist/...js` an npm script runs must come from a source file the build compiles:
// `npm run migrate` once pointed at dist/src/shared/db/migrate-main.js, which no source ever produced.
describe('package.json scripts', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
    scripts: Record<string, string>;
  };
  const entries = Object.entries(pkg.scripts).flatMap(([name, command]) =>
    [...command.matchAll(/\bdist\/(\S+)\.js\b/g)].map((m) => ({ name, source: `${m[1]}.ts` })),
  );

  it('run at least the server, worker, site and CLI entry points', () => {
    expect(entries.length).toBeGreaterThanOrEqual(4);
  });

  it.each(entries)('$name runs a compiled $source that exists', ({ source }) => {
    expect(existsSync(source), source).toBe(true);
  });
});
