import { readFile } from 'node:fs/promises';
import subsetFont from 'subset-font';
import { cjkFontFiles } from '../../../domain/circulation-images/cjk-font.js';

/**
 * A worker thread's task (page-font-subset.ts): Noto Sans SC (the regular TrueType face the
 * pictures use) cut to `chars`, as WOFF2. A cut takes a few hundred milliseconds of harfbuzz
 * (wasm), which would stall the site's requests on the main thread. The 10 MB face is read for
 * each cut, not kept: cuts are rare once the pages were seen.
 */
export default async function cutPageFont(chars: string): Promise<Uint8Array> {
  const face = await readFile(cjkFontFiles().regular);
  return subsetFont(face, chars, { targetFormat: 'woff2' });
}
