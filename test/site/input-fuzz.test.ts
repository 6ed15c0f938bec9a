import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArgInvalid, coerceArg, type ArgSchema } from '../../src/http/site/rest/arg-schema.js';
import {
  parsePhpQuery,
  phpInputLimitOf,
  PHP_INPUT_LIMITS,
  type PhpValue,
} from '../../src/http/site/rest/php-query.js';
import { RestError } from '../../src/http/site/rest/rest-error.js';
import { useSite } from './site-fixture.js';

/**
 * Fuzzing the site's input paths. Bounded by run counts, never by time;
 * fast-check's seed is printed on a failure, so any counterexample can be replayed.
 */

/** Pieces a hostile query is made of: names, brackets, separators, escapes, unicode. */
const queryPiece = fc.oneof(
  fc.constantFrom('a', 'b', 'include', '__proto__', 'constructor', 'per_page', '0', '1', '99'),
  fc.constantFrom('[', ']', '[]', '][', '&', '=', '%', '%5B', '%5D', '%26', '%3D', '+', '%E0%A4%A'),
  fc.string({ maxLength: 6, unit: 'grapheme' }),
);
const hostileQuery = fc.array(queryPiece, { maxLength: 60 }).map((parts) => parts.join(''));

function leaves(value: PhpValue): number {
  if (typeof value === 'string') return 1;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.reduce((n, child) => n + leaves(child), 0);
}

/** http_build_query of a tree, as PHP and WordPress clients write nested parameters. */
function buildQuery(tree: Record<string, PhpValue>): string {
  const pairs: string[] = [];
  const walk = (name: string, value: PhpValue) => {
    if (typeof value === 'string') {
      pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
      return;
    }
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value);
    for (const [k, v] of entries) walk(`${name}[${k}]`, v);
  };
  for (const [k, v] of Object.entries(tree)) walk(k, v);
  return pairs.join('&');
}

const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,7}$/);
const tree = fc.letrec<{ node: PhpValue }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ maxLength: 8 }),
    fc.array(tie('node'), { minLength: 1, maxLength: 4 }),
    fc.dictionary(
      name.filter((k) => !/^\d+$/.test(k)),
      tie('node'),
      { minKeys: 1, maxKeys: 4 },
    ),
  ),
})).node;
const forest = fc.dictionary(name, tree, { maxKeys: 5 });

describe('parsePhpQuery under fuzzing', () => {
  it('never throws, never touches a prototype, and never yields more values than max_input_vars', () => {
    fc.assert(
      fc.property(hostileQuery, (query) => {
        const parsed = parsePhpQuery(query);
        expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(leaves(parsed)).toBeLessThanOrEqual(PHP_INPUT_LIMITS.maxInputVars);
        JSON.stringify(parsed);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back what http_build_query wrote, nested levels and lists included', () => {
    fc.assert(
      fc.property(forest, (input) => {
        const parsed = parsePhpQuery(buildQuery(input));
        expect(phpInputLimitOf(parsed)).toBeUndefined();
        expect(JSON.parse(JSON.stringify(parsed))).toEqual(JSON.parse(JSON.stringify(input)));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any nesting past 64 levels and any count past 1000, whatever the names', () => {
    fc.assert(
      fc.property(fc.integer({ min: 65, max: 3000 }), name, (depth, key) => {
        const parsed = parsePhpQuery(`${key}${'[x]'.repeat(depth)}=1`);
        expect(phpInputLimitOf(parsed)?.limit).toBe('max_input_nesting_level');
      }),
      { numRuns: 50 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1001, max: 5000 }), (count) => {
        const parsed = parsePhpQuery('x[]=1&'.repeat(count));
        expect(phpInputLimitOf(parsed)?.limit).toBe('max_input_vars');
      }),
      { numRuns: 20 },
    );
  });
});

describe('REST argument validation under fuzzing', () => {
  const site = useSite();

  it('every registered argument schema either coerces a value or refuses it with ArgInvalid (or a RestError from its own check)', () => {
    const schemas: Array<[string, ArgSchema]> = [];
    for (const route of site.app.site.rest.all())
      for (const endpoint of route.endpoints)
        for (const [param, schema] of Object.entries(endpoint.args)) {
          // Own sanitize callbacks read the request: they are exercised over HTTP below.
          if (!schema.sanitize) schemas.push([`${route.pattern} ${param}`, schema]);
        }
    expect(schemas.length).toBeGreaterThan(50);
    const phpish = fc.oneof(fc.string({ maxLength: 12 }), tree, fc.jsonValue({ maxDepth: 4 }));
    fc.assert(
      fc.property(fc.constantFrom(...schemas), phpish, ([param, schema], value) => {
        try {
          coerceArg(value, schema, param);
        } catch (err) {
          if (!(err instanceof ArgInvalid) && !(err instanceof RestError)) throw err;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('no query string or form body makes a REST route answer 5xx', async () => {
    const routes = [
      '/wp-json/wp/v2/posts',
      '/wp-json/wp/v2/pages',
      '/wp-json/wp/v2/categories',
      '/wp-json/wp/v2/users',
      '/wp-json/wp/v2/media',
      '/wp-json/wp/v2/menu-items',
      '/wp-json/wp/v2/posts/1',
      '/wp-json/',
      '/',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.constantFrom('GET', 'POST'),
        hostileQuery,
        hostileQuery,
        async (route, method, query, body) => {
          const res = await site.app.inject({
            method,
            url: `${route}?${query.replace(/#/g, '%23')}`,
            ...(method === 'POST'
              ? {
                  headers: { 'content-type': 'application/x-www-form-urlencoded' },
                  payload: body,
                }
              : {}),
          });
          expect(
            res.statusCode,
            `${method} ${route}?${query} <- ${body}: ${res.body}`,
          ).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });
});
