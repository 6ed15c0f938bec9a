import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { createPostgresDb } from '../../src/db/postgres-db.js';
import { PageVersionFeed } from '../../src/records/page-version-feed.js';
import {
  CHANGE_LEAD_MS,
  ChangeNotice,
  FEED_HORIZON_MS,
  parseNotice,
} from '../../src/records/page-version-notices.js';
import {
  PageVersionReader,
  recordsVersionKey,
  type PageVersionKey,
} from '../../src/records/page-versions.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

/** Bumps a day's version as a build that changes it does (announced unless told not to). */
async function bump(db: Db, day: number, announce = true): Promise<number> {
  const notice = announce ? ChangeNotice.announce(db, recordsVersionKey(day)) : undefined;
  return db.transaction(async (tx) => {
    const r = await tx.query<{ version: number }>(
      `INSERT INTO daily_record_builds AS b (service_day, version, inputs) VALUES ($1, 1, 'test')
       ON CONFLICT (service_day) DO UPDATE SET version = b.version + 1 RETURNING version`,
      [day],
    );
    const version = r.rows[0]!.version;
    await notice?.commitIn(tx, version, true);
    return version;
  });
}

async function until(what: string, test: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('page version feed (LISTEN/NOTIFY, self-heartbeats, announced changes)', () => {
  // The API process's side: a pool of its own, as another process would have.
  let apiDb: Db;
  let day = 21_000;

  beforeAll(() => {
    apiDb = createPostgresDb({ connectionString: t.current.url, max: 3 });
  });
  afterAll(async () => {
    await apiDb.close();
  });

  /** A feed and reader whose key is known and trusted. */
  async function trustedFeed(options: ConstructorParameters<typeof PageVersionFeed>[1] = {}) {
    const feed = new PageVersionFeed(apiDb, options);
    const reader = new PageVersionReader(apiDb, feed);
    const key: PageVersionKey = recordsVersionKey(++day);
    const version = await bump(t.current.db, day);
    // Reads teach the feed once its listener is up (a read begun before then does not).
    const end = Date.now() + 5_000;
    while (feed.trusted(key) !== version) {
      expect(await reader.read(key)).toBe(version);
      if (Date.now() > end) throw new Error('the feed never trusted the version it read');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { feed, reader, key, version };
  }

  it('trusts nothing before its listener is up and a heartbeat came back', async () => {
    const feed = new PageVersionFeed(apiDb);
    try {
      expect(feed.trusted(recordsVersionKey(day))).toBeUndefined();
      // A read that began before the listener was up teaches it nothing.
      feed.learn(recordsVersionKey(day), 3, feed.readToken());
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(feed.trusted(recordsVersionKey(day))).toBeUndefined();
    } finally {
      await feed.close();
    }
  });

  it('never trusts a version older than a change that has committed (an announced build)', async () => {
    const { feed, reader, key } = await trustedFeed();
    try {
      for (let i = 0; i < 12; i++) {
        const version = await bump(t.current.db, day);
        // Right after the commit: not trusted (the intent is open), or trusted at the new version.
        const seen = feed.trusted(key);
        expect(seen === undefined || seen === version, `round ${i}: ${seen} vs ${version}`).toBe(
          true,
        );
        expect(await reader.read(key)).toBe(version);
        await until('the done notice', () => feed.trusted(key) === version);
      }
    } finally {
      await feed.close();
    }
  });

  it('learns the new version from the done notice, without reading it', async () => {
    const { feed, key, version } = await trustedFeed();
    try {
      const next = await bump(t.current.db, day);
      expect(next).toBe(version + 1);
      await until('the done notice', () => feed.trusted(key) === next);
    } finally {
      await feed.close();
    }
  });

  it('a change written without its notice stays unseen: why only announcing writers bump versions', async () => {
    const { feed, key, version } = await trustedFeed();
    try {
      const next = await bump(t.current.db, day, false);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(feed.trusted(key)).toBe(version);
      expect(next).toBe(version + 1);
    } finally {
      await feed.close();
    }
  });

  it('stops trusting a key under an open intent; trusts it again once it is withdrawn', async () => {
    const { feed, key, version } = await trustedFeed();
    try {
      const notice = ChangeNotice.announce(t.current.db, key);
      await until('the intent', () => feed.trusted(key) === undefined);
      await notice.withdraw();
      await until('the withdrawal', () => feed.trusted(key) === version);
    } finally {
      await feed.close();
    }
  });

  it('forgets an intent whose writer never said more, after the intent lifetime', async () => {
    const { feed, key, version } = await trustedFeed({ intentTtlMs: 300 });
    try {
      ChangeNotice.announce(t.current.db, key);
      await until('the intent', () => feed.trusted(key) === undefined);
      await until('the intent to lapse', () => feed.trusted(key) === version, 2_000);
    } finally {
      await feed.close();
    }
  });

  it('trusts nothing while its horizon is stale (no heartbeat back within the horizon)', async () => {
    let skew = 0;
    const now = () => performance.now() + skew;
    const { feed, key, version } = await trustedFeed({ now });
    try {
      skew += 1_000;
      expect(feed.trusted(key)).toBeUndefined();
      await until('a heartbeat sent after the jump', () => feed.trusted(key) === version);
    } finally {
      await feed.close();
    }
  });

  it('forgets everything when its connection is lost, and learns again on a new one', async () => {
    const { feed, reader, key, version } = await trustedFeed({ reconnectMs: 50 });
    try {
      await t.current.db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'emutrack-listen' AND datname = current_database()`,
      );
      await until('the loss', () => feed.trusted(key) === undefined);
      // A change made while it was away is read, not missed.
      const next = await bump(t.current.db, day, false);
      expect(next).toBe(version + 1);
      await until('a new listener', () => feed.readToken() !== undefined);
      expect(await reader.read(key)).toBe(next);
      await until('trust again', () => feed.trusted(key) === next);
    } finally {
      await feed.close();
    }
  });

  it('never trusts versions whose writers send no notices (export index, timetables)', async () => {
    const { feed } = await trustedFeed();
    try {
      const reader = new PageVersionReader(apiDb, feed);
      await reader.read('exports');
      await reader.read('timetables');
      expect(feed.trusted('exports')).toBeUndefined();
      expect(feed.trusted('timetables')).toBeUndefined();
    } finally {
      await feed.close();
    }
  });

  it('a writer commits a change no sooner than the lead after its intent, and an unchanged one at once', async () => {
    const key = recordsVersionKey(++day);
    const changed = ChangeNotice.announce(t.current.db, key);
    const started = performance.now();
    await t.current.db.transaction((tx) => changed.commitIn(tx, 1, true));
    expect(performance.now() - started).toBeGreaterThanOrEqual(CHANGE_LEAD_MS);
    const unchanged = ChangeNotice.announce(t.current.db, key);
    const again = performance.now();
    await t.current.db.transaction((tx) => unchanged.commitIn(tx, 1, false));
    expect(performance.now() - again).toBeLessThan(CHANGE_LEAD_MS);
    expect(CHANGE_LEAD_MS).toBeGreaterThan(FEED_HORIZON_MS);
  });

  it('parses only the notices it sends', () => {
    expect(parseNotice('i ab12 records:20500')).toEqual({
      kind: 'intent',
      id: 'ab12',
      key: 'records:20500',
    });
    expect(parseNotice('d ab12 records:20500 7')).toMatchObject({ kind: 'done', version: 7 });
    expect(parseNotice('a ab12 records:20500')).toMatchObject({ kind: 'withdrawn' });
    for (const junk of [
      '',
      'x',
      'i',
      'i ab',
      'i ab records:x',
      'd ab records:1',
      'd ab records:1 -1',
    ])
      expect(parseNotice(junk), junk).toBeUndefined();
  });
});
