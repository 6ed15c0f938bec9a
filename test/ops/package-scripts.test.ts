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

// The API process's V8 flags decide its memory under load (docs/performance.md): `npm start`,
// the image, docker-compose's api service and the bench's API child must start it alike, or the
// bench measures a process nobody runs.
describe('the API process is started with the same V8 flags everywhere', () => {
  const flagsBefore = (text: string, entry: string): string[] => {
    const line = text.split('\n').find((l) => l.includes(entry) && !l.trim().startsWith('#'));
    expect(line, entry).toBeDefined();
    return [...line!.slice(0, line!.indexOf(entry)).matchAll(/--[a-z-]+=\d+/g)].map((m) => m[0]);
  };
  const entry = 'dist/src/http/api/server.js';

  it('in npm start, the Dockerfile, docker-compose and the bench', async () => {
    const { API_NODE_FLAGS } = await import('../../bench/suites/api.js');
    expect(API_NODE_FLAGS).toContain('--max-old-space-size=512');
    for (const file of ['package.json', 'Dockerfile', 'docker-compose.yml']) {
      expect(flagsBefore(readFileSync(file, 'utf8'), entry), file).toEqual(API_NODE_FLAGS);
    }
  });
});
