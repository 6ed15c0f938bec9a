/**
 * wpautop, the part that matters for classic content: blank-line separated text becomes
 * paragraphs, single newlines inside a paragraph become <br />, and block-level HTML is left
 * unwrapped.
 */
const BLOCK_TAGS =
  'table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary|script|iframe|video|audio|object|svg';
const STARTS_BLOCK = new RegExp(`^<(?:${BLOCK_TAGS})[\\s/>]`, 'i');
const ENDS_BLOCK = new RegExp(`</(?:${BLOCK_TAGS})>\\s*$`, 'i');

export function autop(text: string, br = true): string {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (normalized === '') return '';
  const pres: string[] = [];
  const guarded = normalized.replace(/<pre[\s\S]*?<\/pre>/gi, (m) => {
    pres.push(m);
    return `<pre wp-pre-tag-${pres.length - 1}></pre>`;
  });
  const out = guarded
    .split(/\n\s*\n/)
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk !== '')
    .map((chunk) => {
      if (STARTS_BLOCK.test(chunk) && ENDS_BLOCK.test(chunk)) return `${chunk}\n`;
      const body = br ? chunk.replace(/\n/g, '<br />\n') : chunk;
      return `<p>${body}</p>\n`;
    })
    .join('');
  return out.replace(/<pre wp-pre-tag-(\d+)><\/pre>/g, (_m, i: string) => pres[Number(i)]!);
}
