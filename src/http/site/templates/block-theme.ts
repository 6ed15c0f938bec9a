import { parse } from '@wordpress/block-serialization-default-parser';
import type { ParsedBlock } from '../../../domain/content/block-render.js';
import type { BlockTemplates } from '../../../domain/templates/block-templates.js';
import { templateHierarchy } from '../../../domain/templates/template-hierarchy.js';
import { escapeHtml, escapeUrl } from '../../html/escape.js';
import { THEME_FONT_STACK } from '../theme/theme-fonts.js';
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
  themeHead,
} from '../theme/manual-chrome.js';
import type {
  NavLink,
  ThemeContext,
  ThemePost,
  ThemeRenderer,
  ThemeView,
} from '../theme/site-theme.js';

const STYLE = `body{margin:0;font:16px/1.7 ${THEME_FONT_STACK};color:#1d2327}
header,main,footer{max-width:52rem;margin:0 auto;padding:0 1.25rem}
header{border-bottom:1px solid #dcdcde;padding-top:1rem}
.wp-block-site-title a{font-size:1.4rem;font-weight:700;text-decoration:none;color:inherit}
.wp-block-site-tagline{margin:.2rem 0 .6rem;color:#50575e}
.wp-block-navigation ul{list-style:none;margin:0;padding:0 0 .6rem;display:flex;gap:1.2rem}
.wp-block-post{margin:2rem 0;border-bottom:1px solid #f0f0f1}
img{max-width:100%;height:auto}a{color:#2271b1}
footer{color:#50575e;font-size:.85rem;padding:2rem 1.25rem}
footer .wp-block-site-title a{font-size:.85rem;font-weight:400}`;

interface RenderState {
  view: ThemeView;
  context: ThemeContext;
  /** The post the blocks are about (single view, or the loop's current post). */
  post?: ThemePost;
  parts: (slug: string) => string | undefined;
  depth: number;
}

function navHtml(links: NavLink[]): string {
  if (links.length === 0) return '';
  return `<ul>${links.map((l) => `<li><a href="${escapeUrl(l.url)}">${escapeHtml(l.title)}</a>${navHtml(l.children)}</li>`).join('')}</ul>`;
}

function attr<T>(block: ParsedBlock, name: string): T | undefined {
  return (block.attrs as Record<string, unknown> | null)?.[name] as T | undefined;
}

function renderInner(block: ParsedBlock, state: RenderState): string {
  let html = '';
  let inner = 0;
  for (const chunk of block.innerContent) {
    html += chunk === null ? renderBlock(block.innerBlocks[inner++]!, state) : chunk;
  }
  return html;
}

/** The theme blocks rendered on the server; any other block is its saved HTML. */
function renderBlock(block: ParsedBlock, state: RenderState): string {
  const { view, context, post } = state;
  switch (block.blockName) {
    case 'core/template-part': {
      const slug = attr<string>(block, 'slug') ?? '';
      const tag = attr<string>(block, 'tagName') ?? 'div';
      const content = state.depth < 4 ? state.parts(slug) : undefined;
      if (content === undefined || !/^[a-z]+$/.test(tag)) return '';
      const html = renderBlocks(content, { ...state, depth: state.depth + 1 });
      return `<${tag} class="wp-block-template-part">${html}</${tag}>`;
    }
    case 'core/site-title': {
      const link = `<a href="${escapeHtml(context.siteUrl)}/" rel="home">${escapeHtml(context.siteName)}</a>`;
      return `<p class="wp-block-site-title">${link}</p>`;
    }
    case 'core/site-tagline':
      return `<p class="wp-block-site-tagline">${escapeHtml(context.siteDescription)}</p>`;
    case 'core/navigation':
      return context.nav.length === 0
        ? ''
        : `<nav class="wp-block-navigation" aria-label="主菜单">${navHtml(context.nav)}</nav>`;
    case 'core/post-title': {
      if (!post) return '';
      const level = attr<number>(block, 'level') ?? 2;
      const tag = level >= 1 && level <= 6 ? `h${level}` : 'p';
      const text = attr<boolean>(block, 'isLink')
        ? `<a href="${escapeHtml(post.link)}">${post.title}</a>`
        : post.title;
      return `<${tag} class="wp-block-post-title"${langAttr(post, context)}>${text}</${tag}>`;
    }
    case 'core/post-date':
      return post && post.type === 'post'
        ? `<div class="wp-block-post-date"><time datetime="${escapeHtml(post.date)}+08:00">${escapeHtml(post.date.slice(0, 10))}</time></div>`
        : '';
    case 'core/post-excerpt':
      return post ? `<div class="wp-block-post-excerpt"><p>${post.excerpt}</p></div>` : '';
    case 'core/post-content':
      return post
        ? `<div class="entry-content wp-block-post-content"${langAttr(post, context)}>${post.content}</div>`
        : '';
    case 'core/search':
      return searchFormHtml(context, view.kind === 'search' ? view.query : '');
    case 'core/query-title':
      return view.kind === 'search'
        ? `<h1 class="wp-block-query-title">“${escapeHtml(view.query)}”的搜索结果</h1><p>找到 ${view.total} 个结果。</p>`
        : '';
    // The page tree's navigation (the manual, the API reference): empty for other pages.
    case 'emutrack/page-sidebar':
      return pageSidebarHtml(post);
    case 'emutrack/breadcrumbs':
      return breadcrumbsHtml(post, context);
    case 'emutrack/language-note':
      return languageNoteHtml(post, context);
    case 'emutrack/page-chapters':
      return pageChaptersHtml(post);
    case 'emutrack/page-pager':
      return pagePagerHtml(post);
    case 'emutrack/footer-links':
      return footerLinksHtml(context);
    case 'core/post-template': {
      // The main query's posts: the front page's or a search's, or the one item of a single view.
      const posts =
        view.kind === 'home' || view.kind === 'search'
          ? view.posts
          : view.kind === 'single'
            ? [view.post]
            : [];
      const items = posts.map(
        (p) =>
          `<li class="wp-block-post post-${p.id} ${escapeHtml(p.type)}">${renderInner(block, { ...state, post: p })}</li>`,
      );
      return items.length === 0 ? '' : `<ul class="wp-block-post-template">${items.join('')}</ul>`;
    }
    case 'core/query-pagination': {
      if (view.kind !== 'home' && view.kind !== 'search') return '';
      const links: string[] = [];
      const s = view.kind === 'search' ? `s=${encodeURIComponent(view.query)}&` : '';
      if (view.page > 1)
        links.push(
          `<a rel="prev" href="${escapeHtml(context.siteUrl)}/?${escapeHtml(s)}paged=${view.page - 1}">${view.kind === 'search' ? '← 上一页' : '← 较新的文章'}</a>`,
        );
      if (view.page < view.totalPages)
        links.push(
          `<a rel="next" href="${escapeHtml(context.siteUrl)}/?${escapeHtml(s)}paged=${view.page + 1}">${view.kind === 'search' ? '下一页 →' : '较早的文章 →'}</a>`,
        );
      return links.length === 0
        ? ''
        : `<nav class="wp-block-query-pagination">${links.join(' ')}</nav>`;
    }
    case 'core/query-no-results':
      return (view.kind === 'home' || view.kind === 'search') && view.posts.length === 0
        ? renderInner(block, state)
        : '';
    default:
      return renderInner(block, state);
  }
}

function renderBlocks(content: string, state: RenderState): string {
  return parse(content)
    .map((b) => renderBlock(b, state))
    .join('');
}

/** The templates a view tries, most specific first (the theme's template hierarchy). */
export function viewHierarchy(view: ThemeView): string[] {
  switch (view.kind) {
    case 'single': {
      const { post } = view;
      const custom = post.template ? [post.template] : [];
      if (post.type === 'page') {
        return [...custom, `page-${post.slug}`, `page-${post.id}`, 'page', 'singular', 'index'];
      }
      // A draft has no slug yet: single-post, not single-post- (which would skip single.html and
      // preview drafts through index.html).
      const slug = post.slug ? `single-${post.type}-${post.slug}` : `single-${post.type}`;
      return [...custom, ...templateHierarchy(slug)];
    }
    case 'home':
      return ['front-page', 'home', 'index'];
    case 'search':
      return ['search', 'index'];
    case 'not-found':
      return ['404', 'index'];
  }
}

/**
 * The block theme: a page's HTML from the first template of its hierarchy (the database's edited
 * copy or the theme's file), with the theme's blocks rendered for the view. Falls back to the
 * previous renderer when no template resolves.
 */
export function blockThemeRenderer(
  templates: BlockTemplates,
  previous: ThemeRenderer,
): ThemeRenderer {
  return async (view, context) => {
    const template = await templates.resolve(viewHierarchy(view));
    if (!template) return previous(view, context);
    const parts = (slug: string) => templates.files.parts.get(slug)?.content;
    const body = renderBlocks(template.content, {
      view,
      context,
      post: view.kind === 'single' ? view.post : undefined,
      parts,
      depth: 0,
    });
    // Unlike the classic theme's, no empty line before </head> without the settings.
    const settings = apiSettingsScript(context);
    return `${themeHead(view, context, STYLE)}${settings && `${settings}\n`}</head>
<body class="${view.kind} wp-theme-${escapeHtml(template.theme)} template-${escapeHtml(template.slug)}">
${body}
</body>
</html>`;
  };
}
