import type { FastifyReply, FastifyRequest } from 'fastify';
import { getPost } from '../../../domain/content/posts-store.js';
import { findSiteAccount } from '../../../domain/content/site-users.js';
import { texturize } from '../../../domain/content/texturize.js';
import { FRAMEABLE_ROUTE } from '../../security-headers.js';
import { oembedResponse, oembedXml } from '../../../domain/oembed/embed-response.js';
import { OembedError } from '../../../domain/oembed/oembed-error.js';
import { OembedProxy } from '../../../domain/oembed/oembed-proxy.js';
import { ProviderAllowList } from '../../../domain/oembed/provider-allow-list.js';
import { PostLinks } from '../content/post-presenter.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { READABLE } from '../rest/route-registry.js';
import type { SiteKit, SiteModule } from '../site-kit.js';
import { escapeHtml } from '../../html/escape.js';
import { resolveSiteUrl } from './resolve-site-url.js';

/** The embed view of an item: what the oEmbed iframe shows. */
export function embedViewUrl(kit: Pick<SiteKit, 'urls'>, id: number): string {
  return kit.urls.page(`/embed/${id}/`);
}

function isEmbedXmlRequest(request: FastifyRequest): boolean {
  const q = request.query as Record<string, unknown>;
  if (q.format !== 'xml') return false;
  const path = request.url.split('?')[0]!;
  const route = typeof q.rest_route === 'string' ? q.rest_route : path.replace(/^\/wp-json/, '');
  return (
    route.replace(/\/+$/, '') === '/oembed/1.0/embed' &&
    (path.startsWith('/wp-json') || typeof q.rest_route === 'string')
  );
}

/** The first args of both oEmbed routes (WordPress registers the same two on each). */
const URL_AND_FORMAT_ARGS: Record<string, ArgSchema> = {
  url: {
    description: 'The URL of the resource for which to fetch oEmbed data.',
    type: 'string',
    format: 'uri',
    required: true,
  },
  format: { type: 'string', default: 'json', enum: ['json', 'xml'] },
};

/**
 * oEmbed: GET /oembed/1.0/embed for the site's own posts and pages (JSON, or XML as WordPress's
 * rest_pre_serve_request filter does), GET /oembed/1.0/proxy for allowed providers only, the
 * embed view the iframe shows, and discovery links in every single item's page head.
 */
export function createOembedModule(): SiteModule {
  return {
    name: 'oembed',
    register(kit: SiteKit) {
      const { db, urls, config } = kit;
      const links = new PostLinks(db, urls);
      const proxy = new OembedProxy(new ProviderAllowList(config.OEMBED_PROVIDERS), {
        timeoutMs: config.OEMBED_PROXY_TIMEOUT_MS,
        maxBytes: config.OEMBED_PROXY_MAX_BYTES,
        cacheSeconds: config.OEMBED_PROXY_CACHE_SECONDS,
      });
      const site = { name: config.SITE_NAME, url: urls.site };

      const embed = async (request: RestRequest) => {
        const post = await resolveSiteUrl(db, urls, links, String(request.get('url')));
        if (!post) throw new RestError('oembed_invalid_url', 'Not Found', 404);
        const author = post.author > 0 ? await findSiteAccount(db, post.author) : undefined;
        return oembedResponse(
          {
            title: texturize(post.title),
            link: await links.linkOf(post),
            embedUrl: embedViewUrl(kit, post.id),
            authorName: author?.username ?? config.SITE_NAME,
            authorUrl: author ? urls.page(`/?author=${author.id}`) : urls.site,
          },
          site,
          Number(request.get('maxwidth') ?? 600),
        );
      };

      kit.rest.register('oembed/1.0', '/embed', {
        methods: READABLE,
        callback: embed,
        args: { ...URL_AND_FORMAT_ARGS, maxwidth: { type: 'integer', default: 600, minimum: 1 } },
      });
      kit.rest.register('oembed/1.0', '/proxy', {
        methods: READABLE,
        permission: (request) => {
          if (!request.can('edit_posts')) {
            throw new RestError(
              'rest_forbidden',
              'Sorry, you are not allowed to make proxied oEmbed requests.',
              request.signedIn ? 403 : 401,
            );
          }
        },
        callback: async (request) => {
          try {
            return await proxy.fetch({
              url: String(request.get('url')),
              maxwidth: request.get<number | undefined>('maxwidth'),
              maxheight: request.get<number | undefined>('maxheight'),
            });
          } catch (err) {
            if (err instanceof OembedError) throw new RestError(err.code, err.message, err.status);
            throw err;
          }
        },
        args: {
          ...URL_AND_FORMAT_ARGS,
          maxwidth: { type: 'integer', default: 600 },
          maxheight: { type: 'integer' },
          discover: { type: 'boolean', default: true },
        },
      });

      // format=xml: the JSON answer of /oembed/1.0/embed re-served as XML.
      // A callback hook, not an async one: no promise per response of the site.
      kit.http.addHook('onSend', (request, reply, payload, done) => {
        if (reply.statusCode !== 200 || typeof payload !== 'string' || !isEmbedXmlRequest(request))
          return done(null, payload);
        try {
          const xml = oembedXml(JSON.parse(payload) as Record<string, string | number>);
          reply.header('content-type', 'text/xml; charset=UTF-8');
          done(null, xml);
        } catch (err) {
          done(err as Error);
        }
      });

      // The embed view is what other sites' iframes show: framing it is its purpose.
      const route = FRAMEABLE_ROUTE;
      kit.http.get('/embed/:id/', route, async (request: FastifyRequest, reply: FastifyReply) => {
        const id = Number((request.params as { id: string }).id);
        const post = Number.isSafeInteger(id) ? await getPost(db, id) : undefined;
        reply.header('content-type', 'text/html; charset=UTF-8');
        if (
          !post ||
          !['post', 'page'].includes(post.type) ||
          post.status !== 'publish' ||
          post.password !== ''
        ) {
          return reply.code(404).send('<!DOCTYPE html><title>Not Found</title><p>Not Found</p>');
        }
        const link = await links.linkOf(post);
        const text =
          post.excerpt ||
          post.content
            .replace(/<[^>]*>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()
            .slice(0, 200);
        return reply.send(`<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="robots" content="noindex, follow">
<title>${escapeHtml(post.title)} – ${escapeHtml(config.SITE_NAME)}</title>
<style>body{margin:0;font:15px/1.6 system-ui,sans-serif;color:#1d2327}.wp-embed{padding:1.2rem;border:1px solid #dcdcde}.wp-embed-heading{margin:0 0 .5rem;font-size:1.2rem}a{color:#2271b1}.wp-embed-footer{color:#50575e;font-size:.85rem;margin-top:.8rem}</style>
</head><body><div class="wp-embed"><p class="wp-embed-heading"><a href="${escapeHtml(link)}" target="_top">${escapeHtml(post.title)}</a></p>
<div class="wp-embed-excerpt"><p>${escapeHtml(text)}</p></div>
<div class="wp-embed-footer"><a href="${escapeHtml(urls.site)}/" target="_top">${escapeHtml(config.SITE_NAME)}</a></div></div></body></html>`);
      });

      // Discovery: every single item's page names its oEmbed endpoints in its head.
      kit.theme.use((previous) => async (view, context) => {
        const html = await previous(view, context);
        if (view.kind !== 'single' || !['post', 'page'].includes(view.post.type)) return html;
        const endpoint = (format: string) =>
          escapeHtml(
            urls.rest('/oembed/1.0/embed', {
              url: view.post.link,
              ...(format === 'xml' ? { format } : {}),
            }),
          );
        const tags =
          `<link rel="alternate" title="oEmbed (JSON)" type="application/json+oembed" href="${endpoint('json')}" />\n` +
          `<link rel="alternate" title="oEmbed (XML)" type="text/xml+oembed" href="${endpoint('xml')}" />\n`;
        return html.includes('</head>') ? html.replace('</head>', `${tags}</head>`) : tags + html;
      });
    },
  };
}
