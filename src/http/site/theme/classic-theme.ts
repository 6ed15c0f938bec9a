import { escapeHtml, escapeUrl } from '../../html/escape.js';
import { THEME_FONT_STACK } from './theme-fonts.js';
import {
  apiSettingsScript,
  breadcrumbsHtml,
  footerLinksHtml,
  langAttr,
  languageNoteHtml,
  pageChaptersHtml,
  pagePagerHtml,
  pageSidebarHtml,
  searchFormHtml,
  searchResultsHtml,
  themeHead,
} from './manual-chrome.js';
import type { NavLink, ThemeContext, ThemePost, ThemeView } from './site-theme.js';

const STYLE = `body{margin:0;font:16px/1.7 ${THEME_FONT_STACK};color:#1d2327;background:#fff}
header,main,footer{max-width:52rem;margin:0 auto;padding:0 1.25rem}
header{border-bottom:1px solid #dcdcde;padding-top:1rem}
header .site-title{font-size:1.4rem;font-weight:700;text-decoration:none;color:inherit}
header p{margin:.2rem 0 .6rem;color:#50575e}
nav ul{list-style:none;margin:0;padding:0 0 .6rem;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem}
nav ul ul{display:none}
a{color:#2271b1}
article{margin:2rem 0;border-bottom:1px solid #f0f0f1}
pre,code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
pre{background:#f6f7f7;padding:.8rem;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #dcdcde;padding:.3rem .5rem}
footer{color:#50575e;font-size:.85rem;padding:2rem 1.25rem}`;

function navHtml(links: NavLink[]): string {
  if (links.length === 0) return '';
  const items = links
    .map(
      (l) =>
        `<li><a href="${escapeUrl(l.url)}">${escapeHtml(l.title)}</a>${navHtml(l.children)}</li>`,
    )
    .join('');
  return `<ul>${items}</ul>`;
}

/** One post; its title, content and excerpt are HTML already filtered for its author (themePost). */
function postHtml(post: ThemePost, full: boolean, ctx: ThemeContext): string {
  const title = full
    ? `<h1 class="entry-title">${post.title}</h1>`
    : `<h2 class="entry-title"><a href="${escapeHtml(post.link)}">${post.title}</a></h2>`;
  const meta =
    post.type === 'post'
      ? `<p class="entry-meta"><time datetime="${escapeHtml(post.date)}+08:00">${escapeHtml(post.date.slice(0, 10))}</time></p>`
      : '';
  const body = full
    ? `<div class="entry-content">${post.content}</div>`
    : `<div class="entry-summary">${post.excerpt}</div>`;
  const type = escapeHtml(post.type);
  const note = full ? languageNoteHtml(post, ctx) : '';
  return `<article id="post-${post.id}" class="${type} type-${type}"${langAttr(post, ctx)}>${note}${title}${meta}${body}</article>`;
}

/**
 * The site's default theme: one HTML document per page, no scripts but the REST settings of a
 * signed-in reader (wpApiSettings: root and nonce, as WordPress embeds them).
 */
export function renderClassicTheme(view: ThemeView, ctx: ThemeContext): string {
  let main: string;
  let sidebar = '';
  switch (view.kind) {
    case 'single':
      sidebar = pageSidebarHtml(view.post);
      main =
        breadcrumbsHtml(view.post, ctx) +
        postHtml(view.post, true, ctx) +
        pageChaptersHtml(view.post) +
        pagePagerHtml(view.post);
      break;
    case 'search':
      main = searchResultsHtml(view, ctx);
      break;
    case 'home': {
      const pages: string[] = [];
      if (view.page > 1)
        pages.push(
          `<a rel="prev" href="${escapeHtml(ctx.siteUrl)}/?paged=${view.page - 1}">← 较新的文章</a>`,
        );
      if (view.page < view.totalPages)
        pages.push(
          `<a rel="next" href="${escapeHtml(ctx.siteUrl)}/?paged=${view.page + 1}">较早的文章 →</a>`,
        );
      main =
        view.posts.map((p) => postHtml(p, false, ctx)).join('') +
        (pages.length ? `<nav class="pagination">${pages.join(' ')}</nav>` : '');
      if (view.posts.length === 0) main = '<p>还没有内容。</p>';
      break;
    }
    case 'not-found':
      main = '<h1>未找到页面</h1><p>这个地址没有内容。</p>';
      break;
  }
  return `${themeHead(view, ctx, STYLE)}${apiSettingsScript(ctx)}
</head>
<body class="${view.kind}">
<header><a class="site-title" href="${escapeHtml(ctx.siteUrl)}/">${escapeHtml(ctx.siteName)}</a><p>${escapeHtml(ctx.siteDescription)}</p><nav aria-label="主菜单">${navHtml(ctx.nav)}</nav>${searchFormHtml(ctx)}</header>
<div class="site-layout">${sidebar}<main>${main}</main></div>
<footer>${escapeHtml(ctx.siteName)}${footerLinksHtml(ctx)}</footer>
</body>
</html>`;
}
