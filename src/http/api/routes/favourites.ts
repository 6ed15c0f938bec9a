import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { FavouriteError } from '../../../domain/favourites/favourite-error.js';
import {
  favouriteStatuses,
  type FavouriteStatus,
} from '../../../domain/favourites/favourite-status.js';
import {
  addFavourite,
  canonicalFavouriteCode,
  FAVOURITE_KINDS,
  listFavourites,
  MAX_FAVOURITE_CODE_LENGTH,
  MAX_FAVOURITES,
  removeFavourite,
  type FavouriteKind,
} from '../../../domain/favourites/favourites-store.js';
import type { Queryable } from '../../../shared/db/db.js';
import { ApiError } from '../api-error.js';
import type { RouteOptions } from '../../app-context.js';
import { callerOf, type V2OperationConfig } from '../v2-edge.js';
import { ACCOUNT_BODY_LIMIT } from './auth.js';

export const FAVOURITES_SCOPE = 'api.auth.favorites';

const latestSchema = z.object({
  date: z.string().describe('YYYYMMDD: the latest service day (up to today) it was seen.'),
  units: z.array(z.string()).optional(),
  trains: z.array(z.string()).optional(),
});

const favouriteSchema = z
  .object({
    kind: z.enum(FAVOURITE_KINDS),
    code: z.string().describe('Canonical: G1, CR400AF-2001, 上海虹桥.'),
    addedAt: z.number().int().describe('Unix seconds.'),
    status: z
      .enum(['seen', 'expected', 'missing', 'not_running', 'not_seen'])
      .optional()
      .describe(
        "Today's status (trains and units): seen; a train due today that has not left yet (expected) or left with no unit seen (missing); a train not due today (not_running); a unit not seen today (not_seen).",
      ),
    units: z.array(z.string()).optional().describe("A train's units today."),
    trains: z.array(z.string()).optional().describe('The trains a unit ran today.'),
    latest: latestSchema.optional(),
    trainsToday: z.number().int().optional().describe('A station: trains stopping there today.'),
  })
  .meta({ id: 'Favorite' });

const listSchema = z.object({
  items: z.array(favouriteSchema),
  limit: z.number().int().describe('The most favourites a user may have.'),
});

const kindSchema = z.enum(FAVOURITE_KINDS);
const codeSchema = z.string().min(1).max(MAX_FAVOURITE_CODE_LENGTH);
const bodySchema = z.object({ kind: kindSchema, code: codeSchema }).strict();

export function favouriteItem(f: FavouriteStatus): z.infer<typeof favouriteSchema> {
  const { addedAt, ...rest } = f;
  return { ...rest, addedAt: Math.floor(addedAt.getTime() / 1000) };
}

function asApiError(err: unknown): never {
  if (err instanceof FavouriteError) throw new ApiError('invalid_param', err.message);
  throw err;
}

/**
 * The canonical code to remove: what it names now, else the code as sent (a favourite whose train
 * or station has gone from the timetables can still be removed).
 */
async function codeToRemove(db: Queryable, kind: FavouriteKind, code: string): Promise<string> {
  try {
    return await canonicalFavouriteCode(db, kind, code);
  } catch (err) {
    if (err instanceof FavouriteError) return code.normalize('NFKC').trim();
    throw err;
  }
}

/**
 * The caller's favourites (the live service's paths, /auth/favorites): a web session or a key
 * holding api.auth.favorites. Each answer is the whole list with today's status of each.
 */
export const favouriteRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { services }) => {
  const { db, costs, clock } = services;
  const userOf = (request: Parameters<typeof callerOf>[0]): string => {
    const caller = callerOf(request);
    if (caller.kind !== 'credential') throw new ApiError('invalid_api_key', 'sign in first');
    return caller.user.userId;
  };
  const answer = async (userId: string) => ({
    items: (await favouriteStatuses(db, await listFavourites(db, userId), clock())).map(
      favouriteItem,
    ),
    limit: MAX_FAVOURITES,
  });
  const operation =
    (errorStatuses: readonly number[] = []) =>
    (operationId: string, summary: string, description: string): { v2: V2OperationConfig } => ({
      v2: {
        operationId,
        summary,
        description: `${description} Quota: ${costs.authMe.of()} per request.`,
        tag: 'Auth',
        scope: FAVOURITES_SCOPE,
        auth: 'required',
        cost: { fixed: costs.authMe },
        errorStatuses,
      },
    });

  app.get(
    '/auth/favorites',
    {
      config: operation()(
        'ListFavorites',
        "Your favourite trains, units and stations, with today's status of each",
        'In the order they were added.',
      ),
      schema: { response: { 200: listSchema } },
    },
    async (request) => answer(userOf(request)),
  );

  app.put(
    '/auth/favorites',
    {
      bodyLimit: ACCOUNT_BODY_LIMIT,
      config: operation([413])(
        'PutFavorite',
        'Adds a favourite (no change when you have it); answers the whole list',
        `JSON \`{kind, code}\`: \`kind\` train, emu or station; \`code\` as written anywhere (g1, CR400AF2001, a station's name), kept in its canonical form. A code that names nothing of its kind is 400 invalid_param naming code. At most ${MAX_FAVOURITES} favourites: one more is 400.`,
      ),
      schema: { body: bodySchema, response: { 200: listSchema } },
    },
    async (request) => {
      const userId = userOf(request);
      const { kind, code } = request.body;
      const canonical = await canonicalFavouriteCode(db, kind, code).catch(asApiError);
      await addFavourite(db, userId, kind, canonical).catch(asApiError);
      return answer(userId);
    },
  );

  app.delete(
    '/auth/favorites',
    {
      config: operation()(
        'DeleteFavorite',
        'Removes a favourite (no change when you do not have it); answers the whole list',
        '`?kind=train|emu|station&code=...`, the code as written anywhere.',
      ),
      schema: {
        querystring: z.object({ kind: kindSchema, code: codeSchema }),
        response: { 200: listSchema },
      },
    },
    async (request) => {
      const userId = userOf(request);
      const { kind, code } = request.query;
      await removeFavourite(db, userId, kind, await codeToRemove(db, kind, code));
      return answer(userId);
    },
  );
};
