/**
 * sanitize_title for slugs: lower case, accents and punctuation gone, spaces to hyphens. CJK and
 * other letters are kept and percent-encoded, as WordPress stores them (`%e6%96%87...`).
 */
export function sanitizeSlug(title: string): string {
  const plain = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/<[^>]*>/g, '')
    .toLowerCase()
    .replace(/&.+?;/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
  return [...plain]
    .map((ch) => (/[a-z0-9-]/.test(ch) ? ch : encodeURIComponent(ch).toLowerCase()))
    .join('')
    .slice(0, 200)
    .replace(/%[0-9a-f]?$/, '');
}

/** `slug`, `slug-2`, `slug-3`, ... : the first that `taken` says is free. */
export async function uniqueSlug(
  slug: string,
  taken: (candidate: string) => Promise<boolean>,
): Promise<string> {
  if (!(await taken(slug))) return slug;
  for (let n = 2; ; n++) {
    const candidate = `${slug}-${n}`;
    if (!(await taken(candidate))) return candidate;
  }
}
