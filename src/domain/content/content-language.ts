/**
 * The language a text is written in, as far as the site needs to know: Chinese or English. The
 * site's chrome is Chinese; a page whose text is English (emutrack's manual, the API reference)
 * is marked `lang="en"` so that readers, screen readers and fonts treat it as English.
 */
export type ContentLanguage = 'zh-CN' | 'en';

const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/gu;
const LATIN_WORD = /[A-Za-z]{2,}/g;

/**
 * English when Latin words outnumber Chinese characters by more than two to one (a Chinese
 * sentence carries a character per syllable, an English one a word: Chinese text with a few
 * product names stays Chinese; English text naming a few stations stays English).
 */
export function contentLanguage(text: string): ContentLanguage {
  const han = text.match(HAN)?.length ?? 0;
  const words = text.match(LATIN_WORD)?.length ?? 0;
  return words > 2 * han ? 'en' : 'zh-CN';
}
