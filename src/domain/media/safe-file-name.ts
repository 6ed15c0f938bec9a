import { extensionOf } from './media-types.js';

const MAX_STEM_LENGTH = 100;

/**
 * A file name safe to store and serve, from what a client sent: no directories, no control or
 * URL-special characters, whitespace and runs of punctuation become one hyphen, letters and
 * digits of any script stay (URLs percent-encode them). Returns the stem and the lower-cased
 * extension apart; an empty stem becomes "file".
 */
export function safeFileName(given: string): { stem: string; ext: string } {
  const base = given.normalize('NFC').split(/[\\/]/).pop() ?? '';
  const ext = extensionOf(base).replace(/[^a-z0-9]/g, '');
  const rawStem = ext === '' ? base : base.slice(0, base.length - ext.length - 1);
  let stem = rawStem
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/[-_.]{2,}/g, (run) => (run.includes('-') ? '-' : run[0]!))
    .replace(/^[-_.]+|[-_.]+$/g, '');
  if (stem.length > MAX_STEM_LENGTH) stem = stem.slice(0, MAX_STEM_LENGTH).replace(/[-_.]+$/, '');
  return { stem: stem === '' ? 'file' : stem, ext };
}

/** stem.ext, or stem-N.ext for the N-th try (N >= 1): how unique names are looked for. */
export function candidateName(stem: string, ext: string, attempt: number): string {
  const s = attempt === 0 ? stem : `${stem}-${attempt}`;
  return ext === '' ? s : `${s}.${ext}`;
}
