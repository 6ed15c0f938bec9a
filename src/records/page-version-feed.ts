import { randomBytes } from 'node:crypto';
import type { Db, DbListener } from '../db/db.js';
import type { Logger } from '../log/logger.js';
import {
  FEED_HORIZON_MS,
  INTENT_TTL_MS,
  PAGE_VERSION_CHANNEL,
  parseNotice,
  type PageVersionNotice,
} from './page-version-notices.js';
import type { PageVersionKey } from './page-versions.js';

/**
 * Page versions an API process may use without reading them, learned from the writers' notices
 * (page-version-notices.ts) on a LISTENing connection of its own.
 *
 * Why it is exact. Postgres delivers notifications to a listener in the order their
 * transactions committed. Every `heartbeatMs` while requests ask, the feed notifies itself on a
 * channel of its own; when that notification comes back, every notice committed before the
 * heartbeat was sent has come back too, so the send time is the feed's **horizon**. A writer
 * commits its intent, waits its lead (longer than FEED_HORIZON_MS), and only then commits the
 * change. So at any moment t at which the horizon is fresh (t - horizon <= FEED_HORIZON_MS),
 * the intent of every change committed before t has been received: the key is either under an
 * open intent (not trusted: the caller reads the version) or closed by a done notice carrying
 * its version. Only durations on each host's own clock are compared, never two clocks.
 *
 * A version is trusted when the listener is up, the horizon is fresh, no intent is open on the
 * key, and the feed has a version for it: from a done notice, or from a read that began after
 * the listener was up (`readToken` / `learn`). A lost connection forgets everything (notices
 * may have been missed) and a new one is opened. Keys whose writers send no notices
 * (`exports`, `timetables`, written by triggers) are never trusted.
 */
export interface PageVersionFeedOptions {
  /** Heartbeat period while requests ask for trusted versions, ms. Default 20. */
  heartbeatMs?: number;
  /** See FEED_HORIZON_MS; must stay below the writers' lead. Default FEED_HORIZON_MS. */
  horizonMs?: number;
  /** Heartbeats stop this long after the last ask, ms. Default 2,000. */
  idleMs?: number;
  /** A lost listener is opened again after this long, ms. Default 1,000. */
  reconnectMs?: number;
  /** See INTENT_TTL_MS (tests shorten it). Default INTENT_TTL_MS. */
  intentTtlMs?: number;
  /** Keys remembered at most. Default 10,000. */
  maxKeys?: number;
  /** Monotonic ms. Default performance.now. */
  now?: () => number;
  logger?: Pick<Logger, 'warn'>;
}

interface OpenIntent {
  key: PageVersionKey;
  expiresAt: number;
}

/** What `readToken` hands out: the listener generation a read began under. */
export type ReadToken = number | undefined;

const ANNOUNCED = /^records:/;

export class PageVersionFeed {
  private listener: DbListener | undefined;
  /** Bumped whenever what the feed knows is thrown away (a new or lost listener). */
  private generation = 0;
  private horizon = Number.NEGATIVE_INFINITY;
  private readonly versions = new Map<PageVersionKey, number>();
  private readonly intents = new Map<string, OpenIntent>();
  /** Open intents per key (the ids are in `intents`). */
  private readonly intentCount = new Map<PageVersionKey, number>();
  private readonly heartbeatChannel = `emutrack_pv_hb_${randomBytes(6).toString('hex')}`;
  private readonly heartbeatsSent = new Map<number, number>();
  private heartbeatSeq = 0;
  private heartbeatInFlight = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lastAsk = Number.NEGATIVE_INFINITY;
  private closed = false;
  private opening: Promise<void> | undefined;
  private readonly heartbeatMs: number;
  private readonly horizonMs: number;
  private readonly idleMs: number;
  private readonly reconnectMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly options: PageVersionFeedOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? 20;
    this.horizonMs = options.horizonMs ?? FEED_HORIZON_MS;
    this.idleMs = options.idleMs ?? 2_000;
    this.reconnectMs = options.reconnectMs ?? 1_000;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** Whether this database can feed versions at all (Postgres: yes; PGlite: no). */
  static supported(db: Db): boolean {
    return typeof db.listen === 'function';
  }

  /**
   * The version of `key` if it may be used without reading it now, else undefined (read it,
   * then `learn` it). Asking keeps the heartbeats going.
   */
  trusted(key: PageVersionKey): number | undefined {
    const now = this.now();
    this.lastAsk = now;
    if (this.heartbeatTimer === undefined) this.wake();
    if (now - this.horizon > this.horizonMs) return undefined;
    if (this.intentCount.has(key) && this.openIntentOn(key, now)) return undefined;
    return this.versions.get(key);
  }

  /** Take before a version read begins; hand to `learn` with what it read. */
  readToken(): ReadToken {
    return this.listener ? this.generation : undefined;
  }

  /** A version read that began when `token` was taken. */
  learn(key: PageVersionKey, version: number, token: ReadToken): void {
    if (token === undefined || token !== this.generation || !ANNOUNCED.test(key)) return;
    this.remember(key, version);
  }

  /**
   * Stops the heartbeats, closes the listener and forgets what it learned (an app closing). A
   * later `trusted` opens it again: several apps may share one feed.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    await this.opening?.catch(() => undefined);
    const listener = this.listener;
    this.listener = undefined;
    this.reset();
    await listener?.close();
    this.closed = false;
  }

  private openIntentOn(key: PageVersionKey, now: number): boolean {
    for (const [id, intent] of this.intents) {
      if (intent.key === key && intent.expiresAt <= now) this.closeIntent(id);
    }
    return this.intentCount.has(key);
  }

  private remember(key: PageVersionKey, version: number): void {
    const known = this.versions.get(key);
    if (known !== undefined && known >= version) return;
    this.versions.delete(key);
    this.versions.set(key, version);
    if (this.versions.size > this.maxKeys) {
      // Oldest remembered first (insertion order); a forgotten key is read again.
      this.versions.delete(this.versions.keys().next().value!);
    }
  }

  private closeIntent(id: string): void {
    const intent = this.intents.get(id);
    if (!intent) return;
    this.intents.delete(id);
    const n = (this.intentCount.get(intent.key) ?? 1) - 1;
    if (n <= 0) this.intentCount.delete(intent.key);
    else this.intentCount.set(intent.key, n);
  }

  private onNotice(notice: PageVersionNotice): void {
    if (!ANNOUNCED.test(notice.key)) return;
    switch (notice.kind) {
      case 'intent':
        if (this.intents.has(notice.id)) this.closeIntent(notice.id);
        this.intents.set(notice.id, {
          key: notice.key,
          expiresAt: this.now() + (this.options.intentTtlMs ?? INTENT_TTL_MS),
        });
        this.intentCount.set(notice.key, (this.intentCount.get(notice.key) ?? 0) + 1);
        return;
      case 'done':
        this.closeIntent(notice.id);
        this.remember(notice.key, notice.version);
        return;
      case 'withdrawn':
        this.closeIntent(notice.id);
    }
  }

  private onNotification(channel: string, payload: string): void {
    if (channel === this.heartbeatChannel) {
      const sentAt = this.heartbeatsSent.get(Number(payload));
      if (sentAt === undefined) return;
      // Every heartbeat sent before this one has come back as well (commit order).
      for (const seq of this.heartbeatsSent.keys()) {
        if (seq <= Number(payload)) this.heartbeatsSent.delete(seq);
      }
      if (sentAt > this.horizon) this.horizon = sentAt;
      return;
    }
    const notice = parseNotice(payload);
    if (notice) this.onNotice(notice);
  }

  /** Forgets everything learned: notices may have been missed. */
  private reset(): void {
    this.generation++;
    this.horizon = Number.NEGATIVE_INFINITY;
    this.versions.clear();
    this.intents.clear();
    this.intentCount.clear();
    this.heartbeatsSent.clear();
    this.heartbeatInFlight = false;
  }

  /** Opens the listener if needed and runs heartbeats until no one asks for idleMs. */
  private wake(): void {
    if (this.closed) return;
    this.heartbeatTimer = setTimeout(() => this.tick(), 0);
    this.heartbeatTimer.unref();
  }

  private tick(): void {
    this.heartbeatTimer = undefined;
    if (this.closed) return;
    const now = this.now();
    if (now - this.lastAsk > this.idleMs) return;
    if (!this.listener) {
      this.opening ??= this.open().finally(() => (this.opening = undefined));
      this.schedule(this.heartbeatMs);
      return;
    }
    // One heartbeat in flight: a slow connection makes the horizon stale, not a queue.
    if (!this.heartbeatInFlight) {
      const seq = ++this.heartbeatSeq;
      this.heartbeatsSent.set(seq, now);
      const listener = this.listener;
      this.heartbeatInFlight = true;
      listener.query(`SELECT pg_notify('${this.heartbeatChannel}', '${seq}')`).then(
        () => (this.heartbeatInFlight = false),
        (err: Error) => {
          this.heartbeatInFlight = false;
          this.lose(listener, err);
        },
      );
    }
    this.schedule(this.heartbeatMs);
  }

  private schedule(ms: number): void {
    if (this.closed || this.heartbeatTimer !== undefined) return;
    this.heartbeatTimer = setTimeout(() => this.tick(), ms);
    this.heartbeatTimer.unref();
  }

  private async open(): Promise<void> {
    try {
      // Lost before it is in use: the first heartbeat fails and loses it then.
      const opened: { listener?: DbListener } = {};
      const listener = await this.db.listen!({
        channels: [PAGE_VERSION_CHANNEL, this.heartbeatChannel],
        onNotification: (channel, payload) => this.onNotification(channel, payload),
        onLost: (err) => {
          if (opened.listener) this.lose(opened.listener, err);
        },
      });
      opened.listener = listener;
      if (this.closed) {
        await listener.close();
        return;
      }
      this.reset();
      this.listener = listener;
    } catch (err) {
      this.options.logger?.warn({ err }, 'page versions: cannot listen; reading them per request');
      await new Promise((resolve) => setTimeout(resolve, this.reconnectMs).unref());
    }
  }

  private lose(listener: DbListener, err: Error): void {
    if (this.listener !== listener) return;
    this.options.logger?.warn(
      { err: err.message },
      'page versions: listener lost; reading them per request until it is back',
    );
    this.listener = undefined;
    this.reset();
    void listener.close();
    // The next tick opens a new one (after reconnectMs, so a down database is not hammered).
    clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.schedule(this.reconnectMs);
  }
}
