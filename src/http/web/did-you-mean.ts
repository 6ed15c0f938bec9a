import type { SearchService } from '../../domain/search/search-service.js';
import { searchItemHref } from './page-links.js';

/** Longest text looked up for suggestions (the search box's own limit). */
const MAX_LOOKUP = 64;

/**
 * Pages a reader who asked for `text` may have meant, from the search index (the API's /search):
 * for the 404 page of an unknown train, unit or station.
 */
export async function didYouMean(
  search: SearchService,
  text: string,
  limit = 5,
): Promise<{ label: string; href: string }[]> {
  const query = text.trim().slice(0, MAX_LOOKUP);
  if (query === '') return [];
  const items = await search.search(query, limit);
  return items.map((item) => ({
    label: item.subtitle ? `${item.code} · ${item.subtitle}` : item.code,
    href: searchItemHref(item),
  }));
}
