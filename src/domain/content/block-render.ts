import { parse } from '@wordpress/block-serialization-default-parser';
import { autop } from './autop.js';
import { texturize } from './texturize.js';

/** One block as WordPress's default parser gives it. */
export type ParsedBlock = ReturnType<typeof parse>[number];

/** The content of a reusable block (`core/block` with `ref`), or undefined when there is none. */
export type ReusableBlockLookup = (id: number) => Promise<string | undefined>;

/**
 * Dynamic blocks the site renders on the server (as register_block_type's render_callback):
 * given the block and its rendered inner HTML, the HTML to show. Modules may add more.
 */
export type DynamicBlockRenderer = (block: ParsedBlock, inner: string) => Promise<string> | string;

export interface BlockRenderOptions {
  reusable?: ReusableBlockLookup;
  dynamic?: ReadonlyMap<string, DynamicBlockRenderer>;
}

/** Whether raw content is block markup (has_blocks). */
export function hasBlocks(raw: string): boolean {
  return raw.includes('<!-- wp:');
}

async function renderBlock(
  block: ParsedBlock,
  options: BlockRenderOptions,
  depth: number,
): Promise<string> {
  if (block.blockName === 'core/block') {
    const ref = Number((block.attrs as { ref?: unknown } | null)?.ref);
    if (!options.reusable || !Number.isInteger(ref) || depth > 8) return '';
    const content = await options.reusable(ref);
    return content === undefined ? '' : renderParsed(parse(content), options, depth + 1);
  }
  let html = '';
  let inner = 0;
  for (const chunk of block.innerContent) {
    if (chunk === null) html += await renderBlock(block.innerBlocks[inner++]!, options, depth);
    else html += chunk;
  }
  const dynamic = block.blockName ? options.dynamic?.get(block.blockName) : undefined;
  if (dynamic) return dynamic(block, html);
  // Freeform (classic) content between blocks gets paragraphs, as the classic editor's does.
  if (block.blockName === null) return html.trim() === '' ? html : autop(html);
  return html;
}

async function renderParsed(
  blocks: ParsedBlock[],
  options: BlockRenderOptions,
  depth: number,
): Promise<string> {
  let html = '';
  for (const b of blocks) html += await renderBlock(b, options, depth);
  return html;
}

/**
 * content.rendered from raw content (the_content): block markup is parsed with WordPress's own
 * default parser and each static block renders to its saved HTML (inner blocks in place, reusable
 * blocks resolved); content without blocks gets paragraphs (wpautop). Both get typographic quotes.
 */
export async function renderContent(
  raw: string,
  options: BlockRenderOptions = {},
): Promise<string> {
  if (!hasBlocks(raw)) return texturize(autop(raw));
  return texturize(await renderParsed(parse(raw), options, 0));
}

/** The plain text of rendered HTML (tags gone, entities of quotes kept as characters). */
export function plainText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/;

/**
 * wp_trim_excerpt: the first `length` words of the rendered content (characters, not counting
 * spaces, for Chinese and other scripts without spaces, as WordPress's zh_CN locale counts),
 * with ` [&hellip;]` when cut; wrapped in a paragraph.
 */
export function generatedExcerpt(renderedContent: string, length = 55): string {
  const text = plainText(renderedContent);
  if (text === '') return '';
  let cut: string;
  let more: boolean;
  if (CJK.test(text)) {
    const chars = [...text];
    let count = 0;
    let i = 0;
    for (; i < chars.length && count < length; i++) if (chars[i] !== ' ') count++;
    cut = chars.slice(0, i).join('').trim();
    more = i < chars.length;
  } else {
    const words = text.split(' ');
    cut = words.slice(0, length).join(' ');
    more = words.length > length;
  }
  return `<p>${cut}${more ? ' [&hellip;]' : ''}</p>\n`;
}
