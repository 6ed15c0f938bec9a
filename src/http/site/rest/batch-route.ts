import { RestError } from './rest-error.js';
import { RestRequest } from './rest-request.js';
import { envelopeOf, RestResponse } from './rest-response.js';
import type { RestMatch, RestServer } from './rest-server.js';
import { parsePhpQuery } from './php-query.js';

/** Most sub-requests one POST /batch/v1 may carry (WordPress's default). */
export const BATCH_MAX_ITEMS = 25;

interface BatchItem {
  method?: string;
  path: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string | string[]>;
}

/**
 * POST /batch/v1 (WP_REST_Server::serve_batch_request_v1): every item is matched and validated
 * first; under `require-all-validate` one failure runs nothing (`failed: "validation"`, the
 * failing items' errors in place, null elsewhere); under `normal` each valid item runs on its
 * own, in order, as the caller. Each item keeps its own match, so a bad path never borrows
 * another item's route.
 */
export function registerBatchRoute(server: RestServer): void {
  server.registry.register('', '/batch/v1', {
    methods: 'POST',
    args: {
      validation: {
        type: 'string',
        enum: ['require-all-validate', 'normal'],
        default: 'normal',
      },
      requests: {
        required: true,
        type: 'array',
        maxItems: BATCH_MAX_ITEMS,
        items: {
          type: 'object',
          properties: {
            method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
            path: { type: 'string', required: true },
            body: { type: 'object', properties: {}, additionalProperties: true },
            headers: {
              type: 'object',
              properties: {},
              additionalProperties: { type: ['string', 'array'], items: { type: 'string' } },
            },
          },
        },
      },
    },
    callback: async (request) => {
      const items = request.get<BatchItem[]>('requests');
      const mode = request.get<string>('validation');
      const prepared: { request: RestRequest; match: RestMatch | RestError }[] = items.map(
        (item) => {
          const sub = subRequest(item, request);
          if (sub instanceof RestError)
            return { request: new RestRequest({ method: 'POST', path: '' }), match: sub };
          const match = server.match(sub.path, sub.method);
          if (match instanceof RestError) return { request: sub, match };
          if (!match.endpoint.allowBatch) {
            return {
              request: sub,
              match: new RestError(
                'rest_batch_not_allowed',
                'The requested route does not support batch requests.',
                400,
              ),
            };
          }
          try {
            server.validate(sub, match);
          } catch (err) {
            if (err instanceof RestError) return { request: sub, match: err };
            throw err;
          }
          return { request: sub, match };
        },
      );
      const failed = prepared.filter((p) => p.match instanceof RestError);
      if (failed.length > 0 && mode === 'require-all-validate') {
        return new RestResponse(
          {
            failed: 'validation',
            responses: prepared.map((p) =>
              p.match instanceof RestError
                ? envelopeOf(server.errorResponse(p.match, p.request))
                : null,
            ),
          },
          207,
        );
      }
      const responses = [];
      for (const p of prepared) {
        const response =
          p.match instanceof RestError
            ? server.errorResponse(p.match, p.request)
            : await server.run(p.request, p.match);
        if (!(p.match instanceof RestError)) {
          // rest_post_dispatch runs for each item too: its Allow, as WordPress writes it.
          const allow = await server.allowedMethods(p.request, p.match.route);
          if (allow) response.headers.Allow = allow;
        }
        responses.push(envelopeOf(response));
      }
      return new RestResponse({ responses }, 207);
    },
  });
}

function subRequest(item: BatchItem, parent: RestRequest): RestRequest | RestError {
  let url: URL;
  try {
    url = new URL(item.path, 'http://batch.invalid');
  } catch {
    return new RestError('parse_path_failed', 'Could not parse the path.', 400);
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(item.headers ?? {})) {
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  return new RestRequest({
    method: item.method ?? 'POST',
    path: decodeURIComponent(url.pathname),
    query: parsePhpQuery(url.search.replace(/^\?/, '')) as Record<string, unknown>,
    body: item.body ?? {},
    headers,
    user: parent.user,
    ip: parent.ip,
  });
}
