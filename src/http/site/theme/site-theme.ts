import type { SiteUser } from '../../../domain/content/site-user.js';

/** A link of the site's navigation (from the menu items of the primary menu). */
export interface NavLink {
  title: string;
  url: string;
  children: NavLink[];
}

/** A link the theme prints (titles are plain text, escaped when printed). */
export interface ThemeLink {
  title: string;
  url: string;
  /** The language of the title when it is not the chrome's. */
  lang?: string;
}

/** A page of a page tree, for the sidebar. */
export interface ThemeTreeLink extends ThemeLink {
  current: boolean;
  children: ThemeTreeLink[];
}

/** Where a page of a tree (the manual, the API reference) sits: its navigation. */
export interface ThemePageNav {
  /** The page's own title, plain. */
  title: string;
  /** The ancestors, top first (the front page is added by the theme). */
  breadcrumbs: ThemeLink[];
  /** The whole tree from its top page, the current page marked. */
  tree: ThemeTreeLink;
  /** The page's chapters (child pages). */
  children: ThemeLink[];
  previous?: ThemeLink;
  next?: ThemeLink;
}

/**
 * One post or page as the theme shows it (already rendered). `title`, `content` and `excerpt` are
 * HTML already filtered for who wrote them (themePost: kses unless the author has
 * unfiltered_html); a theme prints them as HTML in the body, and `title` only through
 * documentTitle() in `<title>`. Everything else is text the theme escapes.
 */
export interface ThemePost {
  id: number;
  type: string;
  slug: string;
  title: string;
  /** content.rendered (HTML). */
  content: string;
  excerpt: string;
  link: string;
  /** Local date, ISO without zone. */
  date: string;
  author: string;
  template: string;
  /** The language of its text (`en`, `zh-CN`); the chrome's when absent. */
  lang?: string;
  /** A page of a page tree: sidebar, breadcrumbs, chapters, previous/next. */
  pageNav?: ThemePageNav;
}

/** What a page of the site is about: one item, the front page (latest posts) or nothing. */
export type ThemeView =
  | { kind: 'single'; post: ThemePost }
  | { kind: 'home'; posts: ThemePost[]; page: number; totalPages: number }
  | {
      kind: 'search';
      query: string;
      posts: ThemePost[];
      total: number;
      page: number;
      totalPages: number;
    }
  | { kind: 'not-found'; path: string };

export interface ThemeContext {
  siteName: string;
  siteDescription: string;
  siteUrl: string;
  restRoot: string;
  /** The read API's public address (PUBLIC_URL): its sign-in, account and reference pages. */
  apiUrl?: string;
  language: string;
  nav: NavLink[];
  /** The signed-in account (cookie), for nonce-carrying pages. */
  user: SiteUser | null;
  /** A REST nonce for the signed-in account (embedded as wpApiSettings). */
  nonce?: string;
  /** The page's CSP nonce, for the one inline script it prints (wpApiSettings). */
  cspNonce?: string;
}

/** Renders a page's whole HTML document. */
export type ThemeRenderer = (view: ThemeView, context: ThemeContext) => string | Promise<string>;

/**
 * The site's theme: the default renders a plain, fast HTML document; a module (block templates)
 * may replace it with `use`, receiving the previous renderer to fall back on.
 */
export class SiteTheme {
  private renderer: ThemeRenderer;

  constructor(initial: ThemeRenderer) {
    this.renderer = initial;
  }

  use(make: (previous: ThemeRenderer) => ThemeRenderer): void {
    this.renderer = make(this.renderer);
  }

  render(view: ThemeView, context: ThemeContext): Promise<string> {
    return Promise.resolve(this.renderer(view, context));
  }
}
