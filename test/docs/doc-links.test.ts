import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/shared/app/package-root.js';
import { headingAnchors, markdownLinks } from '../../src/domain/content/markdown-anchors.js';

const root = packageRoot();
const docs = readdirSync(path.join(root, 'docs'))
  .filter((n) => n.endsWith('.md'))
  .map((n) => `docs/${n}`);
const files = ['README.md', ...docs];

/** Every broken link of one markdown file: a relative file that is missing, or an anchor. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  const markdown = readFileSync(path.join(root, file), 'utf8');
  for (const link of markdownLinks(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto:
    const [target = '', anchor] = link.target.split('#');
    const resolved =
      target === '' ? path.join(root, file) : path.join(root, path.dirname(file), target);
    const where = `${file}:${link.line} [${link.text}](${link.target})`;
    if (!resolved.startsWith(root) || !existsSync(resolved)) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
      broken.push(`${where}: an anchor into something that is not markdown`);
      continue;
    }
    if (!headingAnchors(readFileSync(resolved, 'utf8')).includes(decodeURIComponent(anchor)))
      broken.push(`${where}: no heading with that anchor`);
  }
  return broken;
}

describe('the README and docs/: every link leads somewhere', () => {
  it('finds the pages (the crawl is not vacuous)', () => {
    expect(docs.length).toBeGreaterThanOrEqual(10);
    const links = files.flatMap((f) => markdownLinks(readFileSync(path.join(root, f), 'utf8')));
    expect(links.filter((l) => l.target.includes('#')).length).toBeGreaterThan(5);
  });

  it.each(files)('%s: relative files exist and in-page anchors name a heading', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('the README is short and links every topic page', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    const linked = new Set(markdownLinks(readme).map((l) => l.target.split('#')[0]));
    for (const page of [
      'getting-started',
      'operations',
      'api',
      'oauth',
      'site',
      'data-formats',
      'performance',
      'architecture',
      'compatibility',
    ])
      expect(linked, page).toContain(`docs/${page}.md`);
  });

  it('nothing points at a compatibility.md outside docs/', () => {
    for (const file of files) {
      const text = readFileSync(path.join(root, file), 'utf8');
      // Bare mentions (not links) of the file name would send readers looking for it.
      const bare = text.replace(/\]\([^)]*\)/g, '').match(/(?<![\w/-])compatibility\.md/g) ?? [];
      expect(bare, file).toEqual([]);
    }
  });
});

describe('the link checker', () => {
  it('sees a missing file and a missing anchor', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(path.join(tmpdir(), 'emutrack-links-'));
    try {
      await writeFile(
        path.join(dir, 'a.md'),
        '# A\n\n## Real heading\n\n[x](b.md) [y](#nope) [z](#real-heading)\n',
      );
      const markdown = readFileSync(path.join(dir, 'a.md'), 'utf8');
      const targets = markdownLinks(markdown).map((l) => l.target);
      expect(targets).toEqual(['b.md', '#nope', '#real-heading']);
      expect(existsSync(path.join(dir, 'b.md'))).toBe(false);
      expect(headingAnchors(markdown)).toEqual(['a', 'real-heading']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads anchors as GitHub does (code, punctuation, repeats)', () => {
    expect(
      headingAnchors(
        '# T\n## Daily records: `GET /api/v2/records/daily`\n## EMUs: codes, aliases and the fleet CSV\n## Notes\n## Notes\n```\n## not a heading\n```\n',
      ),
    ).toEqual([
      't',
      'daily-records-get-apiv2recordsdaily',
      'emus-codes-aliases-and-the-fleet-csv',
      'notes',
      'notes-1',
    ]);
  });
});
