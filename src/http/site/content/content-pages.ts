import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { canReadPost } from '../../../domain/content/capabilities.js';
import { POST_TYPES } from '../../../domain/content/post-types.js';
import { findPostBySlug, getPost, listPosts } from '../../../domain/content/posts-store.js';
import { localDate } from '../../../domain/content/site-dates.js';
import type { SitePost } from '../../../domain/content/site-post.js';
import { findSiteAccount } from '../../../domain/content/site-users.js';
import { texturize } from '../../../domain/content/texturize.js';
import { plainText } from '../../../domain/content/block-render.js';
import { ksesPost, ksesTitle } from '../../../domain/content/kses.js';
import { hasCap } from '../../../domain/content/site-user.js';
import { escapeHtmlText } from '../theme/escape-html.js';
import { contentLanguage } from '../../../domain/content/content-language.js';
import {
  pageNavigation,
  publishedPageTree,
  type PageNode,
} from '../../../domain/content/page-tree.js';
import { searchPublishedPosts } from '../../../domain/content/search-posts.js';
import { SESSION_COOKIE } from '../auth/site-authenticator.js';
import type { SiteKit } from '../site-kit.js';
import type {
  NavLink,
  ThemeLink,
  ThemePageNav,
  ThemePost,
  ThemeTreeLink,
} from '../theme/site-theme.js';
import type { PostLinks, PostPresenter } from './post-presenter.js';
import { primaryMenuLinks } from './menu-navigation.js';

const HOME_PER_PAGE = 10;
/** WordPress's zh_CN text for "There is no excerpt because this is a protected post." */
const PROTECTED_EXCERPT = '无法提供摘要。这是一篇受保护的文章。';

/** Rendered content of untrusted authors -> the same after kses (filtering costs, pages repeat). */
const filteredContent = new LRUCache<string, string>({ max: 2000 });

/**
 * The site's own pages: the front page (latest posts), each published post at
 * /yyyy/mm/dd/slug/, each published page at its path, `?p=` and `?page_id=`; the navigation is the
 * primary menu's items. Drafts and private items show only to readers who may read them.
 */
export function registerContentPages(
  kit: SiteKit,
  presenters: { post: PostPresenter; page: PostPresenter },
  links: PostLinks,
): void {
  const { db, http, pages } = kit;

  const themePost = async (post: SitePost): Promise<ThemePost> => {
    const presenter = post.type === 'page' ? presenters.page : presenters.post;
    const content = await presenter.renderedContent(post);
    const author = post.author > 0 ? await findSiteAccount(db, post.author) : undefined;
    // What was saved without unfiltered_html was filtered then; filtering again as it is printed
    // also covers items saved before that filter existed or by an author since demoted (kses is
    // idempotent). Items of the site itself (author 0: first-start documents) are trusted.
    const trusted = post.author === 0 || hasCap(author, 'unfiltered_html');
    const html = trusted ? (s: string) => s : ksesPost;
    let safeContent = trusted ? content : filteredContent.get(content);
    if (safeContent === undefined) filteredContent.set(content, (safeContent = ksesPost(content)));
    return {
      id: post.id,
      type: post.type,
      slug: post.slug,
      title: texturize(trusted ? post.title : ksesTitle(post.title)),
      content: post.password === '' ? safeContent : '<p>此内容受密码保护。</p>',
      // get_the_excerpt of a protected post: neither its excerpt nor its content.
      excerpt:
        post.password !== ''
          ? PROTECTED_EXCERPT
          : post.excerpt
            ? html(post.excerpt)
            : escapeHtmlText(plainText(safeContent).slice(0, 120)),
      link: await links.linkOf(post),
      date: localDate(post.dateGmt ?? post.modifiedGmt),
      author: author?.username ?? '',
      template: post.template,
      lang: contentLanguage(`${post.title} ${plainText(content)}`),
    };
  };

  /** A page's place in its page tree (the manual, the API reference), for the theme. */
  const pageNavOf = async (post: SitePost): Promise<ThemePageNav | undefined> => {
    if (post.type !== 'page' || post.status !== 'publish' || post.password !== '') return undefined;
    const nav = pageNavigation(await publishedPageTree(db), post.id);
    if (!nav) return undefined;
    const link = (n: PageNode): ThemeLink => {
      const lang = contentLanguage(n.title);
      return {
        title: texturize(n.title),
        url: kit.urls.page(`/${n.path}/`),
        ...(lang === 'en' ? { lang } : {}),
      };
    };
    const tree = (n: PageNode, depth: number): ThemeTreeLink => ({
      ...link(n),
      current: n.id === post.id,
      children: depth < 3 ? n.children.map((c) => tree(c, depth + 1)) : [],
    });
    return {
      title: texturize(post.title),
      breadcrumbs: nav.ancestors.map(link),
      tree: tree(nav.root, 0),
      children: nav.node.children.map(link),
      ...(nav.previous ? { previous: link(nav.previous) } : {}),
      ...(nav.next ? { next: link(nav.next) } : {}),
    };
  };

  const showSingle = async (
    request: FastifyRequest,
    reply: FastifyReply,
    post: SitePost | undefined,
  ) => {
    const type = post ? POST_TYPES[post.type] : undefined;
    if (post && type?.viewable) {
      const session =
        post.status === 'publish'
          ? undefined
          : await kit.auth.session(request.cookies?.[SESSION_COOKIE]);
      if (canReadPost(session?.user ?? null, post, type) && post.status !== 'trash') {
        const shown = await themePost(post);
        const pageNav = await pageNavOf(post);
        if (pageNav) shown.pageNav = pageNav;
        return pages.send(request, reply, { kind: 'single', post: shown });
      }
    }
    return pages.send(request, reply, { kind: 'not-found', path: request.url.split('?')[0]! }, 404);
  };

  pages.nav = async (): Promise<NavLink[]> => primaryMenuLinks(db, links);

  pages.home = async (request, reply) => {
    const q = request.query as Record<string, unknown>;
    if (q.p !== undefined) return showSingle(request, reply, await getPost(db, Number(q.p)));
    if (q.page_id !== undefined)
      return showSingle(request, reply, await getPost(db, Number(q.page_id)));
    const page = Math.max(1, Number(q.paged) || 1);
    if (typeof q.s === 'string' && q.s.trim() !== '') {
      // WordPress's search page: published posts and pages matching every word.
      const query = q.s.trim().slice(0, 200);
      // Who asks decides what a protected item's text may match (a signed-in editor's own).
      const viewer = (await kit.auth.session(request.cookies?.[SESSION_COOKIE]))?.user ?? null;
      const found = await searchPublishedPosts(db, viewer, {
        types: ['post', 'page'],
        search: query,
        limit: HOME_PER_PAGE,
        offset: (page - 1) * HOME_PER_PAGE,
      });
      return pages.send(request, reply, {
        kind: 'search',
        query,
        posts: await Promise.all(found.items.map(themePost)),
        total: found.total,
        page,
        totalPages: Math.max(1, Math.ceil(found.total / HOME_PER_PAGE)),
      });
    }
    const { total, items } = await listPosts(db, {
      types: ['post'],
      statuses: ['publish'],
      orderby: 'date',
      order: 'desc',
      stickyFirst: true,
      limit: HOME_PER_PAGE,
      offset: (page - 1) * HOME_PER_PAGE,
    });
    const posts = await Promise.all(items.map(themePost));
    return pages.send(request, reply, {
      kind: 'home',
      posts,
      page,
      totalPages: Math.max(1, Math.ceil(total / HOME_PER_PAGE)),
    });
  };

  http.get('/:year(^\\d{4}$)/:month(^\\d{2}$)/:day(^\\d{2}$)/:slug/', async (request, reply) => {
    const { slug } = request.params as { slug: string };
    const post = await findPostBySlug(
      db,
      'post',
      encodeURIComponent(decodeURIComponent(slug)).toLowerCase(),
    );
    return showSingle(request, reply, post);
  });

  http.get('/*', async (request, reply) => {
    const path = (request.params as { '*': string })['*'].replace(/\/+$/, '');
    const slugs = path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => encodeURIComponent(decodeURIComponent(s)).toLowerCase());
    const last = slugs[slugs.length - 1];
    if (!last) return pages.send(request, reply, { kind: 'not-found', path: request.url }, 404);
    const page = await findPostBySlug(db, 'page', last);
    if (page) {
      // The whole path must be the page's ancestry.
      let parent = page.parent;
      for (let i = slugs.length - 2; i >= 0; i--) {
        const p = await getPost(db, parent);
        if (!p || p.slug !== slugs[i])
          return pages.send(request, reply, { kind: 'not-found', path: request.url }, 404);
        parent = p.parent;
      }
      if (parent === 0) return showSingle(request, reply, page);
    }
    return pages.send(request, reply, { kind: 'not-found', path: request.url }, 404);
  });
}
