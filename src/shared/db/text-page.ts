/**
 * The lines of a page read as one text value, a line per row (the records and history page
 * queries return their pages so: one value costs node a fraction of what a row per record
 * does). With `limit`, at most `limit` lines of the limit + 1 the query was asked for, and
 * whether more followed; without, every line.
 */
export function textPageLines(
  page: string | null | undefined,
  limit?: number,
): { lines: string[]; more: boolean } {
  if (!page) return { lines: [], more: false };
  if (limit === undefined) return { lines: page.split('\n'), more: false };
  const lines = page.split('\n', limit + 1);
  const more = lines.length > limit;
  if (more) lines.length = limit;
  return { lines, more };
}
