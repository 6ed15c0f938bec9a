import { describe, expect, it } from 'vitest';
import { ksesPost, ksesTitle, safeUrl } from '../../src/domain/content/kses.js';
import { owaspXssVectors, unsafeMarkup } from '../helpers/html-safety.js';

const VECTORS = owaspXssVectors();

describe('kses (what authors and contributors may save as HTML)', () => {
  it('reads the OWASP filter-evasion vectors, the issue payloads first', () => {
    expect(VECTORS.length).toBeGreaterThan(80);
    expect(VECTORS[0]).toBe('XSS <img src=x onerror=alert(1)>');
  });

  describe.each(VECTORS.map((v, i) => [i + 1, v] as const))('OWASP vector %i', (_n, vector) => {
    it('leaves nothing that runs in content, excerpt or title', () => {
      // The payload as is, inside a block and after text: the places authors write it.
      for (const html of [
        vector,
        `<!-- wp:paragraph --><p>${vector}</p><!-- /wp:paragraph -->`,
        `前文 ${vector} 后文`,
      ]) {
        expect(unsafeMarkup(ksesPost(html)), `post: ${html}`).toEqual([]);
        expect(unsafeMarkup(ksesTitle(html)), `title: ${html}`).toEqual([]);
      }
    });

    it('is stable: filtering what was filtered changes nothing', () => {
      const once = ksesPost(vector);
      expect(ksesPost(once)).toBe(once);
    });
  });

  it('keeps the markup WordPress allows in posts: blocks, links, images, tables, headings', () => {
    const content = [
      '<!-- wp:heading {"level":3} --><h3 class="wp-block-heading" id="g1">G1 次</h3><!-- /wp:heading -->',
      '<!-- wp:paragraph --><p>见 <a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener">时刻表</a>、<strong>粗</strong>、<em>斜</em>、<code>CR400AF</code></p><!-- /wp:paragraph -->',
      '<!-- wp:image {"id":7,"sizeSlug":"large"} --><figure class="wp-block-image size-large"><img src="/wp-content/uploads/2026/11/a.png" alt="动车组" class="wp-image-7"/></figure><!-- /wp:image -->',
      '<!-- wp:table --><figure class="wp-block-table"><table><thead><tr><th>车次</th></tr></thead><tbody><tr><td colspan="2">G1</td></tr></tbody></table></figure><!-- /wp:table -->',
      '<p style="color:#cf2e2e;text-align:center">红色</p>',
      '<!--more-->',
      '<ul><li>一</li></ul><ol start="3" reversed=""><li>三</li></ol><blockquote cite="https://example.com/"><p>引</p></blockquote>',
    ].join('\n');
    const kept = ksesPost(content);
    for (const piece of [
      '<!-- wp:heading {"level":3} -->',
      '<h3 class="wp-block-heading" id="g1">G1 次</h3>',
      '<!-- /wp:heading -->',
      'href="https://example.com/a?b=1&amp;c=2"',
      'target="_blank"',
      '<strong>粗</strong>',
      '<code>CR400AF</code>',
      '<!-- wp:image {"id":7,"sizeSlug":"large"} -->',
      'src="/wp-content/uploads/2026/11/a.png"',
      'alt="动车组"',
      '<td colspan="2">G1</td>',
      'style="color:#cf2e2e;text-align:center"',
      '<!--more-->',
      '<ol start="3" reversed="">',
      '<blockquote cite="https://example.com/">',
    ])
      expect(kept).toContain(piece);
  });

  it('filters block attributes as filter_block_kses does, keeping the block', () => {
    const kept = ksesPost(
      '<!-- wp:paragraph {"className":"a\\u003cimg src=x onerror=alert(1)\\u003e","placeholder":"ok"} --><p>x</p><!-- /wp:paragraph -->',
    );
    expect(kept).toContain('<!-- wp:paragraph {');
    expect(kept).toContain('"placeholder":"ok"');
    expect(kept).not.toMatch(/onerror/);
    expect(kept).toContain('<!-- /wp:paragraph -->');
    // Re-serialized as serialize_block_attributes does: nothing in it can end the comment.
    const attrs = /<!-- wp:paragraph (\{.*?\}) -->/.exec(kept)![1]!;
    expect(attrs).not.toMatch(/[<>]|--/);
    expect(JSON.parse(attrs)).toEqual({ className: 'a<img src="x" />', placeholder: 'ok' });
  });

  it('allows only $allowedtags in a title', () => {
    expect(ksesTitle('XSS <img src=x onerror=alert(1)> <em>ok</em> <p>段</p>')).toBe(
      'XSS  <em>ok</em> 段',
    );
  });

  it('esc_url: refuses schemes outside the allowed protocols, however they are spelled', () => {
    for (const bad of [
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,x',
      'vbscript:x',
    ])
      expect(safeUrl(bad), bad).toBe('');
    for (const good of ['https://example.com/', '/about/', '?p=1', 'mailto:a@example.com', '#top'])
      expect(safeUrl(good)).toBe(good);
  });
});
