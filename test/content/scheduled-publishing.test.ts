import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getPost, insertPost } from '../../src/domain/content/posts-store.js';
import {
  nextScheduledMs,
  publishDuePosts,
  ScheduledPublisher,
} from '../../src/domain/content/scheduled-publishing.js';
import type { Db } from '../../src/shared/db/db.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { useTestDatabase } from '../helpers/test-db.js';

describe('scheduled publishing (one job, no reads)', () => {
  const database = useTestDatabase();
  let db2: Db;

  beforeAll(() => {
    db2 = createPostgresDb({ connectionString: database.current.url, max: 4 });
  });
  afterAll(async () => {
    await db2?.close();
  });

  const schedule = (title: string, at: Date) =>
    insertPost(database.current.db, {
      type: 'post',
      status: 'future',
      title,
      slug: title,
      dateGmt: at,
      modifiedGmt: new Date(),
    });

  it('publishes an item scheduled a second ahead from its timer, with nothing reading it', async () => {
    const db = database.current.db;
    const publisher = new ScheduledPublisher(db);
    await publisher.start();
    try {
      const post = await schedule('one-second-ahead', new Date(Date.now() + 1000));
      publisher.scheduled(post.dateGmt!.getTime());
      expect((await getPost(db, post.id))!.status).toBe('future');
      await vi.waitFor(async () => expect((await getPost(db, post.id))!.status).toBe('publish'), {
        timeout: 10_000,
        interval: 100,
      });
      expect(await nextScheduledMs(db)).toBeNull();
    } finally {
      await publisher.stop();
    }
  });

  it('catches up at once when the clock passes a due date no timer has reached', async () => {
    const db = database.current.db;
    let now = Date.now();
    const publisher = new ScheduledPublisher(db, { clock: () => now });
    await publisher.start();
    try {
      const post = await schedule('an-hour-ahead', new Date(now + 3600_000));
      publisher.scheduled(post.dateGmt!.getTime());
      expect(publisher.catchUp()).toBeUndefined();
      now += 3600_001;
      await publisher.catchUp();
      expect((await getPost(db, post.id))!.status).toBe('publish');
    } finally {
      await publisher.stop();
    }
  });

  it('learns of an item another process scheduled from the due date a reader saw', async () => {
    const db = database.current.db;
    let now = Date.now();
    const here = new ScheduledPublisher(db, { clock: () => now });
    await here.start();
    try {
      const post = await schedule('elsewhere', new Date(now + 60_000));
      now += 60_001;
      // Nothing here scheduled it and no re-check ran yet: only the reader's due date tells.
      expect(here.catchUp()).toBeUndefined();
      await here.catchUp(await nextScheduledMs(db));
      expect((await getPost(db, post.id))!.status).toBe('publish');
    } finally {
      await here.stop();
    }
  });

  it('publishes each due item once when two processes run the job at the same time', async () => {
    const at = new Date(Date.now() - 1000);
    const posts = await Promise.all(Array.from({ length: 20 }, (_, i) => schedule(`due-${i}`, at)));
    const later = await schedule('not-yet', new Date(Date.now() + 3600_000));
    const now = new Date();
    const counts = await Promise.all([
      publishDuePosts(database.current.db, now),
      publishDuePosts(db2, now),
      publishDuePosts(db2, now),
    ]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(posts.length);
    for (const p of posts)
      expect((await getPost(database.current.db, p.id))!.status).toBe('publish');
    expect((await getPost(database.current.db, later.id))!.status).toBe('future');
    // Two publishers (two apps) both catching up publish nothing twice either.
    const clock = () => later.dateGmt!.getTime() + 1;
    const a = new ScheduledPublisher(database.current.db, { clock });
    const b = new ScheduledPublisher(db2, { clock });
    await Promise.all([a.catchUp(later.dateGmt!.getTime()), b.catchUp(later.dateGmt!.getTime())]);
    expect((await getPost(database.current.db, later.id))!.status).toBe('publish');
    expect(await publishDuePosts(db2, new Date(clock()))).toBe(0);
  });
});
