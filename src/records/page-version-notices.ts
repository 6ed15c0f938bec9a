/**
 * The notices a writer of a versioned thing sends, so that API processes can keep serving kept
 * pages without reading the version per request and still never serve one older than a
 * committed change (the protocol: page-version-feed.ts). Only the day build writes
 * `records:<day>`, and it announces every change it may commit.
 *
 * Glossary:
 * - **intent** (`i <id> <key>`): committed on its own before the writer commits, at least
 *   `CHANGE_LEAD_MS` before: "key may change soon; read it until I say".
 * - **done** (`d <id> <key> <version>`): sent in the writer's own transaction, so delivered
 *   exactly when it commits: the key's version as of that commit, and the intent closed.
 * - **withdrawn** (`a <id> <key>`): the writer failed or rolled back; its intent is closed.
 * - **lead**: how long a writer waits between its intent being committed and its own commit.
 *   It is longer than the feed's horizon (FEED_HORIZON_MS), which is what makes every API
 *   process that still serves kept pages have received the intent before the change commits.
 */
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/db.js';
import type { PageVersionKey } from './page-versions.js';

/** The channel of intents, done and withdrawn notices. */
export const PAGE_VERSION_CHANNEL = 'emutrack_page_versions';

/**
 * How long a feed may go without a heartbeat coming back before it stops trusting what it
 * knows (ms of its own clock). A writer's lead must exceed it.
 */
export const FEED_HORIZON_MS = 80;

/** Writers wait this long after their intent is committed before they commit (ms). */
export const CHANGE_LEAD_MS = 120;

/**
 * An intent not closed after this long is forgotten by the feeds (its writer died without a
 * word: its transaction could not commit anyway). A writer still working renews its intent
 * well before, at a third of it.
 */
export const INTENT_TTL_MS = 30_000;

export type PageVersionNotice =
  | { kind: 'intent'; id: string; key: PageVersionKey }
  | { kind: 'done'; id: string; key: PageVersionKey; version: number }
  | { kind: 'withdrawn'; id: string; key: PageVersionKey };

const KEY = /^(records:\d+|exports|timetables)$/;

/** A notice as sent, or undefined for anything else on the channel. */
export function parseNotice(payload: string): PageVersionNotice | undefined {
  const [kind, id, key, version] = payload.split(' ');
  if (!id || !key || !KEY.test(key)) return undefined;
  const k = key as PageVersionKey;
  if (kind === 'i') return { kind: 'intent', id, key: k };
  if (kind === 'a') return { kind: 'withdrawn', id, key: k };
  if (kind === 'd' && version !== undefined && /^\d+$/.test(version)) {
    return { kind: 'done', id, key: k, version: Number(version) };
  }
  return undefined;
}

function notify(db: Queryable, payload: string): Promise<unknown> {
  return db.query('SELECT pg_notify($1, $2)', [PAGE_VERSION_CHANNEL, payload]);
}

export interface ChangeNoticeOptions {
  /** See CHANGE_LEAD_MS. Tests may shorten it together with the feed's horizon. */
  leadMs?: number;
  /** Monotonic ms. Default performance.now. */
  now?: () => number;
}

/**
 * A writer's announced change of one key: `announceChange` commits the intent (on a
 * connection of the pool, outside the writer's transaction), `commitIn` waits out the lead and
 * puts the done notice into the writer's transaction, `withdraw` closes it after a failure.
 * On the embedded PGlite (no feeds: its API process reads versions per request) all three do
 * nothing.
 */
export class ChangeNotice {
  private readonly id = randomBytes(6).toString('hex');
  /** Settles when the current intent is committed, with the time it was known to be. */
  private announced: Promise<number>;
  private readonly leadMs: number;
  private readonly now: () => number;

  private constructor(
    private readonly db: Db | undefined,
    readonly key: PageVersionKey,
    options: ChangeNoticeOptions,
  ) {
    this.leadMs = options.leadMs ?? CHANGE_LEAD_MS;
    this.now = options.now ?? (() => performance.now());
    this.announced = this.announce();
    // Awaited by commitIn; a writer that fails before then withdraws instead.
    this.announced.catch(() => undefined);
  }

  /** Starts announcing a change of `key` (the intent is committed in the background). */
  static announce(db: Db, key: PageVersionKey, options: ChangeNoticeOptions = {}): ChangeNotice {
    return new ChangeNotice(db.kind === 'postgres' ? db : undefined, key, options);
  }

  private async announce(): Promise<number> {
    if (!this.db) return Number.NEGATIVE_INFINITY;
    await notify(this.db, `i ${this.id} ${this.key}`);
    return this.now();
  }

  /**
   * Waits until the intent has been committed for the lead (renewing an intent older than a
   * third of INTENT_TTL_MS), then adds the done notice to `tx`: call it last before the
   * transaction commits. `changed` false (the version stays) closes the intent without waiting.
   */
  async commitIn(tx: Queryable, version: number, changed: boolean): Promise<void> {
    if (!this.db) return;
    let at = await this.announced;
    if (changed) {
      if (this.now() - at > INTENT_TTL_MS / 3) {
        this.announced = this.announce();
        at = await this.announced;
      }
      const wait = at + this.leadMs - this.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
    }
    await notify(tx, `d ${this.id} ${this.key} ${version}`);
  }

  /** Closes the intent after a failed or rolled-back write (best effort: feeds forget it anyway). */
  async withdraw(): Promise<void> {
    if (!this.db) return;
    const db = this.db;
    await this.announced.then(() => notify(db, `a ${this.id} ${this.key}`)).catch(() => undefined);
  }
}
