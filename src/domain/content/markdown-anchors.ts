/**
 * Headings and links of the project's markdown (README.md and docs/*.md), read the way GitHub
 * reads them, so that an in-page anchor that works on GitHub works on the documentation site and
 * in the link check, and the other way round.
 */

/** The visible text of inline markdown: code spans without backticks, links as their text. */
export function inlineText(markdown: string): string {
  return markdown
    .replace(/`([^`]+)`/g, '$1')
    .replace(/\[([^\]]+)\]\([^)\s]+\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, '$1$2');
}

/**
 * GitHub's anchor of a heading: lower case, every character that is not a letter, a mark, a
 * digit, a connector, a space or a hyphen dropped, spaces as hyphens. (github-slugger's rule.)
 */
export function headingSlug(headingMarkdown: string): string {
  return inlineText(headingMarkdown)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Gives repeated slugs GitHub's `-1`, `-2` suffixes, in document order. */
export class SlugCounter {
  private readonly seen = new Map<string, number>();

  next(headingMarkdown: string): string {
    const base = headingSlug(headingMarkdown);
    let slug = base;
    let n = this.seen.get(base) ?? 0;
    while (this.seen.has(slug)) slug = `${base}-${++n}`;
    this.seen.set(base, n);
    this.seen.set(slug, 0);
    return slug;
  }
}

/** Lines of a markdown document outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let fenced = false;
  markdown
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return;
      }
      if (!fenced) out.push({ line, number: i + 1 });
    });
  return out;
}

/** Every heading's anchor (ATX headings `#` to `######`), in order. */
export function headingAnchors(markdown: string): string[] {
  const counter = new SlugCounter();
  const anchors: string[] = [];
  for (const { line } of proseLines(markdown)) {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) anchors.push(counter.next(m[2]!));
  }
  return anchors;
}

export interface MarkdownLink {
  text: string;
  target: string;
  line: number;
}

/** Every inline link `[text](target)` outside code (fenced blocks and code spans). */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, number } of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\[([^\]]+)\]\(([^)\s]+)\)/g))
      links.push({ text: m[1]!, target: m[2]!, line: number });
  }
  return links;
}

/**
 * The markdown with every inline link's target passed through `rewrite` (outside fenced code and
 * code spans); a target `rewrite` returns unchanged stays as it was, and `null` leaves the link's
 * text without a link.
 */
export function rewriteLinks(markdown: string, rewrite: (target: string) => string | null): string {
  let fenced = false;
  return markdown
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return line;
      }
      if (fenced) return line;
      // Code spans stay as they are: rewrite only the text between them.
      return line
        .split(/(`[^`]*`)/)
        .map((part) =>
          part.startsWith('`')
            ? part
            : part.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, text: string, target: string) => {
                const to = rewrite(target);
                return to === null ? text : `[${text}](${to})`;
              }),
        )
        .join('');
    })
    .join('\n');
}
