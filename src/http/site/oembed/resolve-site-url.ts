import { findPostBySlug, getPost } from '../../../domain/content/posts-store.js';
import type { SitePost } from '../../../domain/content/site-post.js';
import type { Db } from '../../../shared/db/db.js';
import type { PostLinks } from '../content/post-presenter.js';
import type { SiteUrls } from '../site-urls.js';

const DATED = /^\/(\d{4})\/(\d{2})\/(\d{2})\/([^/]+)\/?$/;

function normalized(url: URL): string {
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  const p = url.searchParams.get('p') ?? url.searchParams.get('page_id');
  return `${url.host}${path}${p ? `?${p}` : ''}`;
}

/**
 * url_to_postid for oEmbed: the published, unprotected post or page a URL of this site names
 * (`?p=`, `?page_id=`, a dated post link or a page path), or undefined. The candidate's own
 * link must be the URL, so another host, a wrong date or a wrong parent path finds nothing.
 */
export async function resolveSiteUrl(
  db: Db,
  urls: SiteUrls,
  links: PostLinks,
  href: string,
): Promise<SitePost | undefined> {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  const site = new URL(urls.site);
  if (url.host !== site.host || !['http:', 'https:'].includes(url.protocol)) return undefined;
  let candidate: SitePost | undefined;
  const byId = url.searchParams.get('p') ?? url.searchParams.get('page_id');
  if (byId !== null) {
    candidate = /^\d+$/.test(byId) ? await getPost(db, Number(byId)) : undefined;
  } else {
    const slugOf = (s: string) => {
      try {
        return encodeURIComponent(decodeURIComponent(s)).toLowerCase();
      } catch {
        return undefined;
      }
    };
    const dated = DATED.exec(url.pathname);
    const parts = url.pathname.split('/').filter((s) => s !== '');
    const slug = slugOf(dated ? dated[4]! : (parts[parts.length - 1] ?? ''));
    if (!slug) return undefined;
    candidate = await findPostBySlug(db, dated ? 'post' : 'page', slug);
  }
  if (!candidate || !['post', 'page'].includes(candidate.type)) return undefined;
  if (candidate.status !== 'publish' || candidate.password !== '') return undefined;
  if (byId === null) {
    const own = new URL(await links.linkOf(candidate));
    if (normalized(own) !== normalized(url)) return undefined;
  }
  return candidate;
}
