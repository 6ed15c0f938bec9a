import type { Db, Queryable } from '../../shared/db/db.js';
import { findEmuId, followMerge } from '../emus/emu-registry.js';
import { stationKnown } from '../timetables/station-board.js';
import { isKnownTrain } from '../trains/known-train.js';
import { MalformedTrainCodeError, normalizeTrainCode } from '../trains/train-code.js';
import { FavouriteError } from './favourite-error.js';

/**
 * A user's favourites: trains, units and stations they follow on the home page, each under its
 * canonical code, at most MAX_FAVOURITES per user.
 */
export const FAVOURITE_KINDS = ['train', 'emu', 'station'] as const;
export type FavouriteKind = (typeof FAVOURITE_KINDS)[number];

/** The most favourites one user may have. */
export const MAX_FAVOURITES = 50;
/** The longest code accepted as written (a station name, an alias of a unit). */
export const MAX_FAVOURITE_CODE_LENGTH = 64;

export interface Favourite {
  kind: FavouriteKind;
  code: string;
  createdAt: Date;
}

export function isFavouriteKind(kind: string): kind is FavouriteKind {
  return (FAVOURITE_KINDS as readonly string[]).includes(kind);
}

/**
 * The canonical code of what `written` names, as its pages and the API name it: a train number
 * normalised (g1 -> G1) and known; a unit by any form the registry finds (CR400AF2001, an alias,
 * a merged unit: the unit it was merged into) as its canonical code; a station by its name as a
 * timetable stops there. Anything else is a FavouriteError on `code`.
 */
export async function canonicalFavouriteCode(
  db: Queryable,
  kind: FavouriteKind,
  written: string,
): Promise<string> {
  const text = written.normalize('NFKC').trim();
  if (text.length === 0 || text.length > MAX_FAVOURITE_CODE_LENGTH) {
    throw new FavouriteError('code', `expected 1 to ${MAX_FAVOURITE_CODE_LENGTH} characters`);
  }
  if (kind === 'train') {
    let code: string;
    try {
      code = normalizeTrainCode(text);
    } catch (err) {
      if (err instanceof MalformedTrainCodeError) {
        throw new FavouriteError('code', `${JSON.stringify(written)} is not a train number`);
      }
      throw err;
    }
    if (!(await isKnownTrain(db, code))) {
      throw new FavouriteError('code', `no train is known as ${code}`);
    }
    return code;
  }
  if (kind === 'emu') {
    const found = await findEmuId(db, text);
    const emuId = found === undefined ? undefined : await followMerge(db, found);
    const r =
      emuId === undefined
        ? undefined
        : await db.query<{ code: string }>('SELECT code FROM emus WHERE id = $1', [emuId]);
    const code = r?.rows[0]?.code;
    if (code === undefined) throw new FavouriteError('code', `no unit is known as ${text}`);
    return code;
  }
  if (!(await stationKnown(db, text))) {
    throw new FavouriteError('code', `no timetable stops at a station named ${text}`);
  }
  return text;
}

/** The user's favourites, oldest first (the order they were added in). */
export async function listFavourites(db: Queryable, userId: string): Promise<Favourite[]> {
  const r = await db.query<{ kind: FavouriteKind; code: string; created_at: Date }>(
    `SELECT kind, code, created_at FROM favourites WHERE user_id = $1 ORDER BY id`,
    [userId],
  );
  return r.rows.map((row) => ({
    kind: row.kind,
    code: row.code,
    createdAt: new Date(row.created_at),
  }));
}

/** Whether the user has this favourite (kind and canonical code). */
export async function hasFavourite(
  db: Queryable,
  userId: string,
  kind: FavouriteKind,
  code: string,
): Promise<boolean> {
  const r = await db.query(
    'SELECT 1 FROM favourites WHERE user_id = $1 AND kind = $2 AND code = $3',
    [userId, kind, code],
  );
  return r.rows.length > 0;
}

/**
 * Adds a favourite (kind and canonical code); adding one the user has is no change (`added`
 * false). The count and the insert run under a lock of the user's own (a transaction-scoped
 * advisory lock keyed by the user id), so requests racing at MAX_FAVOURITES - 1 add one, never
 * two: the second sees the first's row once it holds the lock.
 */
export async function addFavourite(
  db: Db,
  userId: string,
  kind: FavouriteKind,
  code: string,
  max = MAX_FAVOURITES,
): Promise<{ added: boolean }> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('favourites:' || $1, 0))`, [
      userId,
    ]);
    const r = await tx.query<{ has: boolean; count: string }>(
      `SELECT EXISTS (SELECT 1 FROM favourites WHERE user_id = $1 AND kind = $2 AND code = $3) AS has,
              (SELECT count(*) FROM favourites WHERE user_id = $1) AS count`,
      [userId, kind, code],
    );
    const row = r.rows[0]!;
    if (row.has) return { added: false };
    if (Number(row.count) >= max) {
      throw new FavouriteError(
        'code',
        `you have ${max} favourites, the most there may be: remove one first`,
      );
    }
    await tx.query(`INSERT INTO favourites (user_id, kind, code) VALUES ($1, $2, $3)`, [
      userId,
      kind,
      code,
    ]);
    return { added: true };
  });
}

/** Removes a favourite; removing one the user does not have is no change (`removed` false). */
export async function removeFavourite(
  db: Queryable,
  userId: string,
  kind: FavouriteKind,
  code: string,
): Promise<{ removed: boolean }> {
  const r = await db.query(
    'DELETE FROM favourites WHERE user_id = $1 AND kind = $2 AND code = $3',
    [userId, kind, code],
  );
  return { removed: r.rowCount > 0 };
}
