/**
 * The site's public addresses, from SITE_URL (no trailing slash). REST links use pretty links
 * (`/wp-json/...`); clients without them reach the same handlers through `?rest_route=`.
 */
export class SiteUrls {
  readonly site: string;

  constructor(siteUrl: string) {
    this.site = siteUrl.replace(/\/+$/, '');
  }

  /** rest_url: `{site}/wp-json{route}` with an optional query. */
  rest(route: string, query?: Record<string, string | number | boolean | undefined>): string {
    const path = route.startsWith('/') ? route : `/${route}`;
    let url = `${this.site}/wp-json${path}`;
    if (query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
      const s = qs.toString();
      if (s) url += `?${s}`;
    }
    return url;
  }

  /** The REST root as advertised in `Link: <...>; rel="https://api.w.org/"`. */
  get restRoot(): string {
    return `${this.site}/wp-json/`;
  }

  /** A path on the site: `{site}/path`. */
  page(path: string): string {
    return `${this.site}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /**
   * The route of a REST URL of this site (pretty or `?rest_route=`), with its query; undefined
   * for another host's URL. Used to dispatch `_embed` links internally.
   */
  routeOf(href: string): { path: string; query: string } | undefined {
    let url: URL;
    try {
      url = new URL(href, this.site);
    } catch {
      return undefined;
    }
    const base = new URL(this.site);
    if (url.host !== base.host) return undefined;
    const restRoute = url.searchParams.get('rest_route');
    if (restRoute !== null) {
      url.searchParams.delete('rest_route');
      return { path: restRoute, query: url.searchParams.toString() };
    }
    const prefix = `${base.pathname.replace(/\/+$/, '')}/wp-json`;
    if (!url.pathname.startsWith(prefix)) return undefined;
    return {
      path: decodeURIComponent(url.pathname.slice(prefix.length)) || '/',
      query: url.search.replace(/^\?/, ''),
    };
  }
}
