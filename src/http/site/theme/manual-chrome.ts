import { escapeHtml, scriptJson } from '../../html/escape.js';
import { documentTitle, escapeHtmlText } from './escape-html.js';
import { SITE_ASSET_PATHS } from './site-assets.js';
import { THEME_WEB_FONT } from './theme-fonts.js';
import type { ThemeContext, ThemeLink, ThemePost, ThemeTreeLink, ThemeView } from './site-theme.js';

/**
 * The parts of the site's pages both themes (classic and block) print: the search box, and
 * around a page that belongs to a page tree (the manual, the API reference) its sidebar,
 * breadcrumbs, chapter list and previous/next links. The chrome is Chinese, like the site; a
 * page whose text is English says so and carries `lang="en"`.
 */

/**
 * The page's description for search engines' results: an item's excerpt as text (its tags
 * stripped, its entities kept), else the site's tagline.
 */
function metaDescription(view: ThemeView, ctx: ThemeContext): string {
  const excerpt =
    view.kind === 'single'
      ? view.post.excerpt
          .replace(/<[^>]*>?/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()
      : '';
  return excerpt ? escapeHtmlText(excerpt) : escapeHtml(ctx.siteDescription || ctx.siteName);
}

/**
 * A page up to its REST settings and `</head>`: `<title>` and the description for the view, the
 * theme's `style`, and the stylesheets, the search script and the icon, served by the site
 * itself (CSP: 'self').
 */
export function themeHead(view: ThemeView, ctx: ThemeContext, style: string): string {
  // Text for <title> (the post's title is HTML: its tags go, its text is escaped).
  const siteName = escapeHtml(ctx.siteName);
  const title =
    view.kind === 'single'
      ? `${documentTitle(view.post.title)} – ${siteName}`
      : view.kind === 'not-found'
        ? `未找到页面 – ${siteName}`
        : view.kind === 'search'
          ? `“${escapeHtml(view.query)}”的搜索结果 – ${siteName}`
          : siteName;
  return `<!DOCTYPE html>
<html lang="${escapeHtml(ctx.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="${metaDescription(view, ctx)}">
<link rel="icon" href="${SITE_ASSET_PATHS.icon}" type="image/svg+xml">
<link rel="https://api.w.org/" href="${escapeHtml(ctx.restRoot)}">
<style>${style}</style>
<link rel="stylesheet" href="${SITE_ASSET_PATHS.css}">
<link rel="stylesheet" href="${THEME_WEB_FONT.stylesheetUrl}">
<script src="${SITE_ASSET_PATHS.searchScript}" defer></script>
`;
}

/** A signed-in reader's REST settings (wpApiSettings: root and nonce, as WordPress embeds them). */
export function apiSettingsScript(ctx: ThemeContext): string {
  if (!ctx.nonce) return '';
  const settings = { root: ctx.restRoot, nonce: ctx.nonce, versionString: 'wp/v2/' };
  return `<script nonce="${escapeHtml(ctx.cspNonce ?? '')}">var wpApiSettings=${scriptJson(settings)};</script>`;
}

/** The search box: `/?s=` without scripts; with them, live results from /wp/v2/search. */
export function searchFormHtml(ctx: ThemeContext, query = ''): string {
  return (
    `<form role="search" method="get" class="site-search" action="${escapeHtml(ctx.siteUrl)}/" data-rest-root="${escapeHtml(ctx.restRoot)}">` +
    `<label class="screen-reader-text" for="site-search-input">搜索文档</label>` +
    `<input type="search" id="site-search-input" name="s" value="${escapeHtml(query)}" placeholder="搜索手册与 API 参考…" autocomplete="off">` +
    `<button type="submit">搜索</button>` +
    `<div class="site-search-results" role="status" aria-live="polite" hidden></div>` +
    `</form>`
  );
}

/** `lang` attribute for a post's own text (title, content) when it is not the chrome's. */
export function langAttr(post: ThemePost | undefined, ctx: ThemeContext): string {
  return post?.lang && post.lang !== ctx.language ? ` lang="${escapeHtml(post.lang)}"` : '';
}

/** The note above an English page under the Chinese chrome. */
export function languageNoteHtml(post: ThemePost | undefined, ctx: ThemeContext): string {
  if (!post?.lang || post.lang === ctx.language || post.lang !== 'en') return '';
  return `<p class="language-note" lang="${escapeHtml(ctx.language)}">本页内容为英文（English）</p>`;
}

function treeHtml(items: readonly ThemeTreeLink[]): string {
  if (items.length === 0) return '';
  const lis = items.map(
    (i) =>
      `<li><a href="${escapeHtml(i.url)}"${i.current ? ' aria-current="page"' : ''}${i.lang ? ` lang="${escapeHtml(i.lang)}"` : ''}>${escapeHtml(i.title)}</a>${treeHtml(i.children)}</li>`,
  );
  return `<ul>${lis.join('')}</ul>`;
}

/** The sidebar: the page tree the page belongs to, the page marked. */
export function pageSidebarHtml(post: ThemePost | undefined): string {
  const nav = post?.pageNav;
  if (!nav) return '';
  const root = nav.tree;
  return (
    `<aside class="page-sidebar"><nav aria-label="${escapeHtml(root.title)}目录">` +
    `<p class="page-sidebar-title"><a href="${escapeHtml(root.url)}"${root.current ? ' aria-current="page"' : ''}>${escapeHtml(root.title)}</a></p>` +
    `${treeHtml(root.children)}</nav></aside>`
  );
}

function linkHtml(l: ThemeLink, rel?: string): string {
  return `<a href="${escapeHtml(l.url)}"${rel ? ` rel="${rel}"` : ''}${l.lang ? ` lang="${escapeHtml(l.lang)}"` : ''}>${escapeHtml(l.title)}</a>`;
}

/** 首页 › the ancestors › the page. */
export function breadcrumbsHtml(post: ThemePost | undefined, ctx: ThemeContext): string {
  const nav = post?.pageNav;
  if (!nav || !post) return '';
  const items = [
    `<li>${linkHtml({ title: '首页', url: `${ctx.siteUrl}/` })}</li>`,
    ...nav.breadcrumbs.map((b) => `<li>${linkHtml(b)}</li>`),
    `<li aria-current="page"${langAttr(post, ctx)}>${escapeHtml(nav.title)}</li>`,
  ];
  return `<nav class="breadcrumbs" aria-label="当前位置"><ol>${items.join('')}</ol></nav>`;
}

/** A parent page's chapters (its child pages, in order). */
export function pageChaptersHtml(post: ThemePost | undefined): string {
  const children = post?.pageNav?.children ?? [];
  if (children.length === 0) return '';
  return (
    `<nav class="page-chapters" aria-label="本页章节"><h2>章节</h2><ol>` +
    children.map((c) => `<li>${linkHtml(c)}</li>`).join('') +
    `</ol></nav>`
  );
}

/** Previous and next page of the tree, read top to bottom. */
export function pagePagerHtml(post: ThemePost | undefined): string {
  const nav = post?.pageNav;
  if (!nav || (!nav.previous && !nav.next)) return '';
  const prev = nav.previous
    ? `<span class="pager-prev"><span class="pager-label">← 上一页</span>${linkHtml(nav.previous, 'prev')}</span>`
    : '<span></span>';
  const next = nav.next
    ? `<span class="pager-next"><span class="pager-label">下一页 →</span>${linkHtml(nav.next, 'next')}</span>`
    : '<span></span>';
  return `<nav class="page-pager" aria-label="上一页与下一页">${prev}${next}</nav>`;
}

/** The results of `/?s=`: heading, the box again, the items or a note. */
export function searchResultsHtml(
  view: { query: string; posts: ThemePost[]; total: number },
  ctx: ThemeContext,
): string {
  const items = view.posts
    .map(
      (p) =>
        `<li${langAttr(p, ctx)}><a href="${escapeHtml(p.link)}">${escapeHtml(p.title)}</a><div class="search-excerpt">${p.excerpt}</div></li>`,
    )
    .join('');
  return (
    `<h1>“${escapeHtml(view.query)}”的搜索结果</h1>` +
    searchFormHtml(ctx, view.query) +
    (view.posts.length
      ? `<p>找到 ${view.total} 个结果。</p><ol class="search-result-list">${items}</ol>`
      : '<p>没有找到匹配的内容。换个词试试。</p>')
  );
}

/** The footer's links between the site and the API's own pages (sign-in, account, keys). */
export function footerLinksHtml(ctx: ThemeContext): string {
  if (!ctx.apiUrl) return '';
  const api = escapeHtml(ctx.apiUrl);
  return (
    `<p class="site-footer-links">API：<a href="${api}/account">账户与 API 密钥</a> · ` +
    `<a href="${api}/login">登录</a> · <a href="${api}/register">注册</a> · ` +
    `<a href="${api}/docs">OpenAPI 文档</a></p>`
  );
}
