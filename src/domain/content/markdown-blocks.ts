import { SlugCounter } from './markdown-anchors.js';

/**
 * Markdown (the README's dialect: headings, paragraphs, fenced code, lists, tables, block quotes,
 * inline code, emphasis, links) as block markup, so the first-start documents are real blocks.
 */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function inlineMarkdown(text: string): string {
  const codes: string[] = [];
  let s = text.replace(/`([^`]+)`/g, (_m, c: string) => {
    codes.push(`<code>${esc(c)}</code>`);
    return `\uE000${codes.length - 1}\uE000`;
  });
  s = esc(s)
    .replace(
      /\[([^\]]+)\]\(([^)\s]+)\)/g,
      (_m, t: string, href: string) => `<a href="${href.replace(/"/g, '%22')}">${t}</a>`,
    )
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
  return s.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => codes[Number(i)]!);
}

const block = (name: string, html: string, attrs?: Record<string, unknown>) =>
  `<!-- wp:${name}${attrs ? ` ${JSON.stringify(attrs)}` : ''} -->\n${html}\n<!-- /wp:${name} -->`;

/**
 * Block markup of the markdown. Headings get GitHub's anchors as their `id` (the heading block's
 * `anchor`), so in-page links written for GitHub work on the site; `anchors` continues a count
 * begun elsewhere (a title taken off the top).
 */
export function markdownToBlocks(markdown: string, anchors = new SlugCounter()): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
      i++;
      out.push(
        block('code', `<pre class="wp-block-code"><code>${esc(body.join('\n'))}</code></pre>`),
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      out.push(
        block(
          'heading',
          `<h${level} class="wp-block-heading" id="${anchors.next(heading[2]!).replace(/"/g, '%22')}">${inlineMarkdown(heading[2]!)}</h${level}>`,
          level === 2 ? undefined : { level },
        ),
      );
      i++;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      const rows: string[][] = [];
      for (; i < lines.length && /^\s*\|/.test(lines[i]!); i++) {
        const cells = lines[i]!.trim()
          .replace(/^\||\|$/g, '')
          .split('|')
          .map((c) => c.trim());
        if (cells.every((c) => /^:?-{2,}:?$/.test(c))) continue;
        rows.push(cells);
      }
      const [head, ...body] = rows;
      const thead = head
        ? `<thead><tr>${head.map((c) => `<th>${inlineMarkdown(c)}</th>`).join('')}</tr></thead>`
        : '';
      const tbody = `<tbody>${body.map((r) => `<tr>${r.map((c) => `<td>${inlineMarkdown(c)}</td>`).join('')}</tr>`).join('')}</tbody>`;
      out.push(
        block('table', `<figure class="wp-block-table"><table>${thead}${tbody}</table></figure>`),
      );
      continue;
    }
    if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== '' && !/^```/.test(lines[i]!); i++) {
        const m = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(lines[i]!);
        if (m && !/^\s{4,}/.test(lines[i]!)) items.push(m[2]!);
        else if (items.length) items[items.length - 1] += ` ${lines[i]!.trim()}`;
      }
      const tag = ordered ? 'ol' : 'ul';
      const lis = items.map((t) => block('list-item', `<li>${inlineMarkdown(t)}</li>`)).join('\n');
      out.push(
        block(
          'list',
          `<${tag} class="wp-block-list">${lis}</${tag}>`,
          ordered ? { ordered: true } : undefined,
        ),
      );
      continue;
    }
    if (line.startsWith('>')) {
      const quote: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('>'); i++)
        quote.push(lines[i]!.replace(/^>\s?/, ''));
      out.push(
        block(
          'quote',
          `<blockquote class="wp-block-quote"><p>${inlineMarkdown(quote.join(' '))}</p></blockquote>`,
        ),
      );
      continue;
    }
    const para: string[] = [];
    for (
      ;
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !/^(#{1,6}\s|```|\s*\||\s*([-*]|\d+\.)\s|>)/.test(lines[i]!);
      i++
    )
      para.push(lines[i]!.trim());
    if (para.length === 0) {
      para.push(lines[i]!.trim());
      i++;
    }
    out.push(block('paragraph', `<p>${inlineMarkdown(para.join(' '))}</p>`));
  }
  return out.join('\n\n');
}
