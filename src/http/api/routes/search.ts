import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { limitParam } from '../query-params.js';
import type { RouteOptions } from '../../app-context.js';

/** Longest query (characters): what a lookup box holds; longer is refused, not cut. */
const MAX_QUERY_LENGTH = 64;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;

export const searchItemSchema = z
  .object({
    type: z.enum(['train', 'emu', 'station']),
    code: z
      .string()
      .describe(
        'The canonical code: a train number (G7001), an EMU code (CR400AF-2001) or a station name (杭州东); use it with the other operations.',
      ),
    subtitle: z
      .string()
      .describe(
        "A train's route (start → end), a unit's model and depot, a station's bureau; '' when unknown.",
      ),
    tags: z
      .array(z.string())
      .describe("A train's other numbers (a paired run), a unit's tags; [] when none."),
    match: z
      .enum(['exact', 'prefix', 'contains'])
      .describe('How the query matched: items come exact first, then prefix, then contains.'),
  })
  .meta({ id: 'SearchItem' });

export const searchDataSchema = z
  .object({
    q: z.string().describe('The query as given.'),
    limit: z.uint32().describe('The effective limit.'),
    items: z.array(searchItemSchema),
  })
  .meta({ id: 'SearchData' });

const queryParam = z
  .string({
    error: (issue) => (issue.input === undefined ? 'q is required' : 'q must be given once'),
  })
  .refine((q) => q.trim() !== '', { message: 'q must not be empty' })
  .refine((q) => q.length <= MAX_QUERY_LENGTH, {
    message: `q must be at most ${MAX_QUERY_LENGTH} characters`,
  })
  .meta({
    description:
      'What the user typed: a train number in any form (g7001, G7001/4), an EMU code in any form or alias (CR400AF2001, 2001), a station name, its pinyin or its initials (杭州, hangzhoudong, hzd).',
    examples: ['G7001', 'CR400AF2001', 'hzd'],
  });

/** GET /search: the lookup box (trains, EMUs and stations by what the user types). */
export const searchRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { services }) => {
  const { costs, config, search } = services;
  app.get(
    '/search',
    {
      config: {
        v2: {
          operationId: 'Search',
          tag: 'Search',
          scope: 'api.search.read',
          summary: 'Trains, EMUs and stations by what the user types',
          description: `Ranked exact > prefix > contains (then the shorter match, then trains, EMUs, stations). Trains: any written form of a number, paired runs included. EMUs: the canonical code, any form it was written in, the unit number. Stations: the Chinese name (or its start), the full pinyin, the initials. Changes to timetables and the EMU register are seen within ${config.SEARCH_CHECK_EVERY_MS} ms. Quota: ${costs.search.of()} per request.`,
          cost: { fixed: costs.search },
        },
      },
      schema: {
        querystring: z.object({ q: queryParam, limit: limitParam(DEFAULT_LIMIT, MAX_LIMIT) }),
        response: { 200: searchDataSchema },
      },
    },
    async (request) => {
      const { q, limit } = request.query;
      return { q, limit, items: await search.search(q, limit) };
    },
  );
};
