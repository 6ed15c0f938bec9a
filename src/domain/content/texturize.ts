/**
 * wptexturize for titles and text outside tags: straight quotes become typographic ones
 * (“ ” ‘ ’), `--` an en dash, `---` an em dash, `...` an ellipsis; text inside tags, `<code>`,
 * `<pre>`, `<script>` and `<style>` stays as written. WordPress sends the characters as numeric
 * entities (&#8220; ...), and so does this.
 */
const SKIP = /^<(code|pre|script|style|kbd|tt)\b/i;

function texturizeText(text: string): string {
  return text
    .replace(/---/g, '&#8212;')
    .replace(/ -- /g, ' &#8212; ')
    .replace(/--/g, '&#8211;')
    .replace(/\.\.\./g, '&#8230;')
    .replace(/(^|[\s([{"\u00a0-])'/g, '$1&#8216;')
    .replace(/'/g, '&#8217;')
    .replace(/(^|[\s([{\u00a0-])"/g, '$1&#8220;')
    .replace(/"/g, '&#8221;');
}

export function texturize(html: string): string {
  let out = '';
  let skipping: string | undefined;
  for (const part of html.split(/(<[^>]*>)/)) {
    if (part.startsWith('<')) {
      const open = SKIP.exec(part);
      if (open && !skipping) skipping = open[1]!.toLowerCase();
      else if (skipping && new RegExp(`^</${skipping}\\b`, 'i').test(part)) skipping = undefined;
      out += part;
    } else out += skipping ? part : texturizeText(part);
  }
  return out;
}
