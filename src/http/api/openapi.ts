import fastifySwagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from '@fastify/type-provider-zod';
import type { ApiApp } from '../app-context.js';

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key or an OAuth access token.',
  },
  cookieAuth: { type: 'apiKey', in: 'cookie', name: 'token', description: 'Web login session.' },
} as const;

const QUOTA_HEADERS = {
  'x-api-remain': {
    description: 'Quota left after this request.',
    schema: { type: 'integer' },
  },
  'x-api-cost': { description: 'Quota charged for this request.', schema: { type: 'integer' } },
  'Retry-After': {
    description: 'Seconds to wait (whole, rounded up); sent with 429.',
    schema: { type: 'integer' },
  },
};

const RESPONSE_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  400: 'invalid_param: a parameter is malformed; the message names it.',
  401: 'invalid_api_key: the credential sent is unknown, revoked, expired or not yet active, or the operation needs one (WWW-Authenticate: Bearer). Sign-in: invalid_credentials.',
  403: 'account_banned: the user is banned; insufficient_scope: the credential lacks the scope (named in the message); forbidden: a form without its CSRF token, or a credential of the wrong kind.',
  404: 'not_found',
  409: 'username_taken',
  413: 'payload_too_large: the body is over 16 KiB.',
  422: 'no_circulation: the train is known but has no circulation to draw.',
  429: 'rate_limited: not enough quota; wait Retry-After seconds.',
  500: 'internal',
  502: 'render_failed: the picture could not be drawn (charged as a failed render).',
  503: 'unavailable: the database cannot be reached.',
};

type Document = ReturnType<typeof jsonSchemaTransformObject>;
type DocumentParts = {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; headers?: Record<string, unknown> };
};
type Response = { description?: string; content?: Record<string, unknown>; headers?: unknown };
type Operation = {
  responses?: Record<string, Response>;
  /** Media types a 200 can also be sent as, with a description (e.g. an image when binary=true). */
  'x-binary-content'?: Record<string, string>;
};

/** Names of the component schemas reachable from `root` through $refs. */
function referencedSchemas(root: unknown, schemas: Record<string, unknown>): Set<string> {
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = value.replace('#/components/schemas/', '');
        if (!seen.has(name)) {
          seen.add(name);
          visit(schemas[name]);
        }
      } else {
        visit(value);
      }
    }
  };
  visit(root);
  return seen;
}

/**
 * Completes what the route schemas cannot say: the quota headers and a description on every v2
 * response, 304 and the CSV of GetDailyExport; and drops the component schemas no operation
 * uses (the type provider emits an input and an output copy of every registered schema).
 */
function finishDocument(input: Document): Document {
  const document = input as DocumentParts;
  const paths = document.paths ?? {};
  document.components = { ...document.components, headers: QUOTA_HEADERS };
  const headerRefs = Object.fromEntries(
    Object.keys(QUOTA_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
  for (const [path, operations] of Object.entries(paths)) {
    if (!path.startsWith('/api/v2/')) continue;
    for (const operation of Object.values(operations)) {
      const responses = (operation.responses ??= {});
      for (const [status, response] of Object.entries(responses)) {
        response.description = RESPONSE_DESCRIPTIONS[status] ?? response.description;
        response.headers = headerRefs;
      }
      const binary = operation['x-binary-content'];
      if (binary) {
        const ok = (responses['200'] ??= {
          description: RESPONSE_DESCRIPTIONS[200]!,
          headers: headerRefs,
        });
        for (const [type, description] of Object.entries(binary))
          ok.content = {
            ...ok.content,
            [type]: { schema: { type: 'string', format: 'binary', description } },
          };
        delete operation['x-binary-content'];
      }
      // Cached reads (config.v2.cache): 304 when If-None-Match names the ETag (http-caching.ts).
      if ((operation as Record<string, unknown>)['x-cache'] !== undefined) {
        responses['304'] = {
          description:
            'Not Modified: If-None-Match named the current ETag (strong; costs 1 token, or less when the operation costs less).',
          headers: headerRefs,
        };
        delete (operation as Record<string, unknown>)['x-cache'];
      }
      if (path === '/api/v2/exports/daily/{date}') {
        const ok = responses['200'];
        if (ok) {
          ok.content = {
            ...ok.content,
            'text/csv': { schema: { type: 'string', description: 'The CSV file (binary=true).' } },
          };
        }
      }
    }
  }
  const schemas = document.components.schemas ?? {};
  const used = referencedSchemas(paths, schemas);
  document.components.schemas = Object.fromEntries(
    Object.entries(schemas).filter(([name]) => used.has(name)),
  );
  return input;
}

/** The OpenAPI 3.1 document (at /api/v2/openapi.json) and the interactive docs (at /docs). */
export async function registerOpenApi(app: ApiApp): Promise<void> {
  const options: FastifyDynamicSwaggerOptions = {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'emutrack API',
        version: '2.0.0',
        description:
          'Which train number was run by which EMU on which service day. Every /api/v2 response is an envelope {meta, data} or {meta, error}; meta and the x-api-remain / x-api-cost headers report the quota.',
      },
      tags: [
        {
          name: 'Auth',
          description:
            'Accounts, sign-in, API keys and the session check. Credentials: `Authorization: Bearer <key>` (an API key or OAuth access token) or the `token` cookie of a web sign-in; bearer wins when both come.',
        },
        { name: 'Records', description: 'Daily train/EMU records.' },
        { name: 'Exports', description: 'Per-day CSV exports.' },
        { name: 'Timetable', description: 'Timetables of trains and stations.' },
        { name: 'History', description: 'Assignment histories by train number and by EMU.' },
        { name: 'Allocation', description: 'Base information of EMUs.' },
        {
          name: 'Prediction',
          description:
            'Which EMUs will most likely run a train on a coming day (not in the live service).',
        },
      ],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => finishDocument(jsonSchemaTransformObject(input)),
  };
  await app.register(fastifySwagger, options);
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/api/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
