import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  PAGE_FONT_BASE,
  PAGE_FONT_FAMILY,
  PageFontSubsets,
  pageSubsetChars,
  pageSubsetHead,
  registerPageFontSubsets,
  unicodeRangeOf,
} from '../../../src/http/site/theme/page-font-subset.js';

const page = (body: string, head = '<title>标题</title>') =>
  `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;

/** A cut that records what it was asked for and resolves when told. */
function countedCut() {
  const asked: string[] = [];
  const pending: (() => void)[] = [];
  const cut = (chars: string) => {
    asked.push(chars);
    return new Promise<Buffer>((resolve) =>
      pending.push(() => resolve(Buffer.from(`woff2:${chars}`))),
    );
  };
  return { cut, asked, release: () => pending.splice(0).forEach((r) => r()) };
}

describe("a page's subset characters", () => {
  it('are the Chinese characters of the body, sorted by code point, each once', () => {
    const chars = pageSubsetChars(page('<p class="x" title="手册">使用手册，使用 API。</p>'));
    // 。 U+3002, 使 U+4f7f, 册 U+518c, 手 U+624b, 用 U+7528 and the full-width comma U+ff0c.
    expect(chars).toBe('。使册手用，');
    expect([...chars!].map((c) => c.codePointAt(0))).toEqual(
      [...chars!].map((c) => c.codePointAt(0)).sort((a, b) => a! - b!),
    );
  });

  it("leave out the head's text, Latin, digits and what a system's Latin font draws", () => {
    expect(
      pageSubsetChars(page('Getting started — “quotes” 1318 km é', '<title>手册</title>')),
    ).toBe(undefined);
    expect(pageSubsetChars(page('站 Station'))).toBe('站');
  });

  it('are the same list whatever order the page holds them in', () => {
    expect(pageSubsetChars(page('京沪高铁'))).toBe(pageSubsetChars(page('铁高沪京京')));
  });

  it('are none past the bound: such a page is left to the slices', () => {
    // 401 characters the subsets hold (not every code point from U+4e00 is in the face).
    const block = String.fromCodePoint(...Array.from({ length: 1000 }, (_, i) => 0x4e00 + i));
    const many = [...pageSubsetChars(page(block), 1000)!].slice(0, 401).join('');
    expect([...many]).toHaveLength(401);
    expect(pageSubsetChars(page(many))).toBeUndefined();
    expect([...pageSubsetChars(page(many.slice(0, 400)))!]).toHaveLength(400);
    expect(pageSubsetChars(page('京沪高铁'), 3)).toBeUndefined();
  });

  it('are named by an exact unicode-range, consecutive code points as one range', () => {
    expect(unicodeRangeOf('一丁七万丈')).toBe('U+4e00-4e01,U+4e03,U+4e07-4e08');
    const head = pageSubsetHead({ hash: 'h', url: `${PAGE_FONT_BASE}/h.woff2`, chars: '京站' });
    expect(head).toContain(
      `<link rel="preload" href="${PAGE_FONT_BASE}/h.woff2" as="font" type="font/woff2" crossorigin>`,
    );
    expect(head).toContain(`font-family:"${PAGE_FONT_FAMILY}"`);
    expect(head).toContain('font-display:block');
    expect(head).toContain('unicode-range:U+4eac,U+7ad9}');
  });
});

describe('the subsets kept', () => {
  it('cut one face per character list, shared by concurrent askers, the same URL for the same list', async () => {
    const { cut, asked, release } = countedCut();
    const subsets = new PageFontSubsets({ cut });
    const a = subsets.forPage(page('京沪高铁'))!;
    const b = subsets.forPage(page('铁高沪京'))!;
    expect(b.url).toBe(a.url);
    expect(a.url).toMatch(new RegExp(`^${PAGE_FONT_BASE}/[0-9a-f]{20}\\.woff2$`));
    const both = Promise.all([subsets.fontFor(a.hash), subsets.fontFor(a.hash)]);
    release();
    const [x, y] = await both;
    expect(asked).toEqual(['京沪铁高']);
    expect(x!.toString()).toBe('woff2:京沪铁高');
    expect(y).toBe(x);
    expect(subsets.forPage(page('京沪'))!.url).not.toBe(a.url);
  });

  it('keep a bounded number of bytes, the least recently used evicted first, and cut an evicted one again', async () => {
    const cut = async (chars: string) => Buffer.alloc(1000, chars);
    let cuts = 0;
    const subsets = new PageFontSubsets({ cut: (c) => (cuts++, cut(c)), maxBytes: 2500 });
    const first = subsets.forPage(page('京'))!;
    await subsets.fontFor(first.hash);
    await subsets.fontFor(subsets.forPage(page('沪'))!.hash);
    await subsets.fontFor(first.hash); // used again: 沪 is now the oldest
    await subsets.fontFor(subsets.forPage(page('高'))!.hash);
    expect(subsets.size).toBe(2);
    expect(cuts).toBe(3);
    await subsets.fontFor(first.hash);
    expect(cuts).toBe(3); // still kept
    await subsets.fontFor(subsets.forPage(page('沪'))!.hash);
    expect(cuts).toBe(4); // evicted, cut again
  });

  it('keep no failed cut: the next asker cuts again', async () => {
    let cuts = 0;
    const subsets = new PageFontSubsets({
      cut: async () => {
        cuts++;
        if (cuts === 1) throw new Error('cut failed');
        return Buffer.from('ok');
      },
    });
    const s = subsets.forPage(page('京'))!;
    await expect(subsets.fontFor(s.hash)).rejects.toThrow('cut failed');
    expect((await subsets.fontFor(s.hash))!.toString()).toBe('ok');
    expect(cuts).toBe(2);
  });
});

describe('the subsets served', () => {
  const serve = async (subsets: PageFontSubsets) => {
    const app = Fastify();
    registerPageFontSubsets(app, subsets);
    await app.ready();
    return app;
  };

  it('serve a handed-out hash as immutable WOFF2', async () => {
    const subsets = new PageFontSubsets({ cut: async (c) => Buffer.from(`woff2:${c}`) });
    const app = await serve(subsets);
    const { url } = subsets.forPage(page('京沪'))!;
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('font/woff2');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe('woff2:京沪');
    await app.close();
  });

  it('answer 404 for a hash this process did not hand out, cutting nothing', async () => {
    let cuts = 0;
    const subsets = new PageFontSubsets({ cut: async () => (cuts++, Buffer.from('x')) });
    const app = await serve(subsets);
    for (const file of [
      `${'0'.repeat(20)}.woff2`,
      `${'a'.repeat(19)}.woff2`,
      '京沪.woff2',
      '..%2F..%2Fpackage.json',
      `${'0'.repeat(20)}.ttf`,
    ]) {
      expect((await app.inject({ url: `${PAGE_FONT_BASE}/${file}` })).statusCode, file).toBe(404);
    }
    expect(cuts).toBe(0);
    await app.close();
  });
});

describe('the real cut', () => {
  it(
    'is a WOFF2 of Noto Sans SC holding the characters, made in a worker thread',
    { timeout: 60_000 },
    async () => {
      const subsets = new PageFontSubsets();
      const { hash } = subsets.forPage(page('京沪高速铁路'))!;
      const bytes = (await subsets.fontFor(hash))!;
      expect(bytes.subarray(0, 4).toString('latin1')).toBe('wOF2');
      expect(bytes.length).toBeGreaterThan(500);
      expect(bytes.length).toBeLessThan(20_000);
      await subsets.close();
    },
  );
});
