import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ICON_SVG } from '../../favicon.js';

/**
 * The site's stylesheet and its one script, served by the site (a Content-Security-Policy of
 * 'self' allows them; no inline script is needed). Their URLs carry a hash of their content, so
 * they are cached for a year and a new version is a new URL.
 */

/**
 * Layout and reading styles both themes share: the manual's sidebar beside the text (below it on
 * narrow screens), breadcrumbs, previous/next, code blocks and wide tables that scroll inside
 * themselves, and long words, paths and URLs that wrap, so no page scrolls sideways at 390 px.
 */
const SITE_CSS = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{overflow-wrap:break-word}
p,li,dd,h1,h2,h3,h4,h5,h6,a{overflow-wrap:anywhere}
img,video,iframe{max-width:100%;height:auto}
.screen-reader-text{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header,.site-header,.wp-block-template-part:first-child{position:relative}
nav ul{flex-wrap:wrap}
.site-search{position:relative;display:flex;gap:.4rem;max-width:28rem;margin:.2rem 0 .8rem}
.site-search input{flex:1;min-width:0;font:inherit;padding:.35rem .6rem;border:1px solid #8c8f94;border-radius:4px}
.site-search button{font:inherit;padding:.35rem .9rem;border:1px solid #2271b1;background:#2271b1;color:#fff;border-radius:4px;cursor:pointer}
.site-search-results{position:absolute;z-index:10;top:100%;left:0;right:0;margin-top:.2rem;background:#fff;border:1px solid #c3c4c7;border-radius:4px;box-shadow:0 4px 12px rgba(0,0,0,.12);max-height:60vh;overflow:auto}
.site-search-results ul{list-style:none;margin:0;padding:.3rem 0;display:block}
.site-search-results li a{display:block;padding:.35rem .7rem;text-decoration:none}
.site-search-results li a:hover,.site-search-results li a:focus{background:#f0f6fc}
.site-search-results p{margin:0;padding:.5rem .7rem;color:#50575e}
.site-layout{max-width:76rem;margin:0 auto}
body:has(.page-sidebar)>header,body:has(.page-sidebar)>footer{max-width:76rem}
.site-layout:has(>.page-sidebar){display:grid;grid-template-columns:15rem minmax(0,1fr);gap:0 2rem;padding:0 1.25rem}
.site-layout:has(>.page-sidebar)>main{max-width:52rem;margin:0;padding:0;min-width:0}
.page-sidebar{font-size:.92rem;padding:1.5rem 0;align-self:start;position:sticky;top:0;max-height:100vh;overflow:auto}
.page-sidebar ul{list-style:none;margin:0;padding:0 0 0 .8rem;display:block}
.page-sidebar>nav>ul{padding:0}
.page-sidebar li{margin:.15rem 0}
.page-sidebar a{text-decoration:none;display:block;padding:.1rem .4rem;border-radius:3px}
.page-sidebar a[aria-current=page]{background:#2271b1;color:#fff}
.page-sidebar-title{font-weight:700;margin:0 0 .4rem}
.breadcrumbs ol{list-style:none;margin:1rem 0 0;padding:0;display:flex;flex-wrap:wrap;gap:.2rem;font-size:.9rem;color:#50575e}
.breadcrumbs li+li::before{content:"›";margin:0 .35rem;color:#8c8f94}
.language-note{display:inline-block;margin:.6rem 0 0;padding:.1rem .6rem;font-size:.85rem;background:#f0f6fc;border:1px solid #c5d9ed;border-radius:999px;color:#1d2327}
.page-chapters{margin:2rem 0;padding:1rem 1.25rem;background:#f6f7f7;border-radius:6px}
.page-chapters h2{margin:0 0 .5rem;font-size:1.1rem}
.page-chapters ol{margin:0;padding-left:1.4rem}
.page-pager{display:flex;flex-wrap:wrap;justify-content:space-between;gap:1rem;margin:2.5rem 0 1rem;padding-top:1rem;border-top:1px solid #dcdcde}
.page-pager>span{display:flex;flex-direction:column;max-width:48%}
.pager-next{text-align:right;margin-left:auto}
.pager-label{font-size:.8rem;color:#50575e}
pre,code,kbd,samp{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono",monospace}
code{font-size:.88em;background:#f0f0f1;padding:.1em .3em;border-radius:3px;overflow-wrap:anywhere}
pre,.wp-block-code{background:#1e2430;color:#e6edf3;padding:.9rem 1rem;border-radius:6px;overflow-x:auto;font-size:.85rem;line-height:1.55;max-width:100%;white-space:pre}
pre code,.wp-block-code code{background:none;color:inherit;padding:0;font-size:inherit;overflow-wrap:normal}
.wp-block-table,figure{margin:1rem 0;max-width:100%;overflow-x:auto}
.wp-block-table table{border-collapse:collapse;font-size:.9rem;min-width:100%}
.wp-block-table th{background:#f6f7f7;text-align:left}
.wp-block-table td,.wp-block-table th{border:1px solid #dcdcde;padding:.35rem .55rem;vertical-align:top}
.wp-block-table td,.wp-block-table th,.wp-block-table td *{overflow-wrap:break-word}
.wp-block-table th{white-space:nowrap}
.wp-block-post-template{list-style:none;padding:0}
.wp-block-quote{margin:1rem 0;padding:.2rem 1rem;border-left:4px solid #c3c4c7;color:#3c434a}
h2,h3,h4{scroll-margin-top:1rem}
.search-result-list li{margin:.8rem 0}
.search-excerpt{color:#50575e;font-size:.92rem}
.site-footer-links{margin:.4rem 0 0}
@media (max-width:60rem){
.site-layout:has(>.page-sidebar){display:flex;flex-direction:column;padding:0}
.site-layout:has(>.page-sidebar)>main{padding:0 1.25rem}
.page-sidebar{order:2;position:static;max-height:none;margin:0 1.25rem;padding:1rem 0;border-top:1px solid #dcdcde}
}
@media (max-width:30rem){
header,main,footer{padding-left:1rem!important;padding-right:1rem!important}
h1{font-size:1.6rem}
.page-sidebar{margin:0 1rem}
}
`;

/**
 * Live results for the search box from WordPress's own search route (`/wp/v2/search`, the one
 * the block editor's link search uses). Without it the box submits to `/?s=` as WordPress's does.
 */
const SEARCH_SCRIPT = `(function () {
  'use strict';
  var form = document.querySelector('form.site-search');
  if (!form || !window.fetch) return;
  var input = form.querySelector('input[name="s"]');
  var box = form.querySelector('.site-search-results');
  var root = form.getAttribute('data-rest-root') || '/wp-json/';
  var timer = 0;
  var asked = 0;
  function clear() { box.hidden = true; box.textContent = ''; }
  function show(items, term) {
    box.textContent = '';
    if (!items.length) {
      var p = document.createElement('p');
      p.textContent = '没有找到“' + term + '”。';
      box.appendChild(p);
    } else {
      var ul = document.createElement('ul');
      items.forEach(function (item) {
        var li = document.createElement('li');
        var a = document.createElement('a');
        a.href = item.url;
        // title is rendered HTML (entities, maybe tags): its text, parsed inertly.
        a.textContent = new DOMParser().parseFromString(item.title, 'text/html').documentElement.textContent;
        li.appendChild(a);
        ul.appendChild(li);
      });
      box.appendChild(ul);
    }
    box.hidden = false;
  }
  input.addEventListener('input', function () {
    clearTimeout(timer);
    var term = input.value.trim();
    if (term.length < 2) { clear(); return; }
    timer = setTimeout(function () {
      var mine = ++asked;
      var url = root + 'wp/v2/search?type=post&subtype=any&per_page=10&search=' + encodeURIComponent(term);
      fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
        .then(function (r) { return r.ok ? r.json() : []; })
        .then(function (items) { if (mine === asked) show(items, term); })
        .catch(function () { if (mine === asked) clear(); });
    }, 200);
  });
  input.addEventListener('keydown', function (e) { if (e.key === 'Escape') clear(); });
  document.addEventListener('click', function (e) { if (!form.contains(e.target)) clear(); });
})();
`;

/** The site's icon (an "e" on the theme's blue): a browser asks for one on every first visit. */

/** WordPress's virtual robots.txt: everything may be crawled but the admin screens. */
const ROBOTS_TXT = 'User-agent: *\nDisallow: /wp-admin/\n';

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

export const SITE_ASSET_PATHS = {
  css: `/wp-content/themes/emutrack/site.css?ver=${version(SITE_CSS)}`,
  searchScript: `/wp-content/themes/emutrack/search.js?ver=${version(SEARCH_SCRIPT)}`,
  icon: `/wp-content/themes/emutrack/icon.svg?ver=${version(ICON_SVG)}`,
} as const;

/**
 * Serves the stylesheet, the script and the icon (the `ver` query names the content; a year of
 * cache) and robots.txt. The icon is the one `/favicon.ico` draws (src/http/favicon.ts, served
 * by both servers for the pages and programs that name no icon).
 */
export function registerSiteAssets(app: FastifyInstance): void {
  const serve = (path: string, type: string, body: string) => {
    const etag = `"${version(body)}"`;
    app.get(path.split('?')[0]!, async (request, reply) => {
      reply
        .header('content-type', type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('etag', etag)
        .header('x-content-type-options', 'nosniff');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(body);
    });
  };
  serve(SITE_ASSET_PATHS.css, 'text/css; charset=UTF-8', SITE_CSS);
  serve(SITE_ASSET_PATHS.searchScript, 'text/javascript; charset=UTF-8', SEARCH_SCRIPT);
  serve(SITE_ASSET_PATHS.icon, 'image/svg+xml', ICON_SVG);
  app.get('/robots.txt', (_request, reply) =>
    reply.header('content-type', 'text/plain; charset=UTF-8').send(ROBOTS_TXT),
  );
}
