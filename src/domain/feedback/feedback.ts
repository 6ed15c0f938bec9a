import type { Db, Queryable } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** The live service's feedback topics. */
export const FEEDBACK_TOPICS = [
  'missing-assignment',
  'wrong-assignment',
  'coupled-unit',
  'wrong-circulation',
  'wrong-allocation',
  'more-quota',
] as const;
export type FeedbackTopic = (typeof FEEDBACK_TOPICS)[number];

export const MAX_FEEDBACK_BODY = 4000;
/** Threads one account may open a day (a bound on what one account makes the operators read). */
export const MAX_THREADS_PER_DAY = 10;

/** Feedback refused: a field malformed (named), or too much of it. */
export class FeedbackError extends EmutrackError {
  constructor(
    readonly field: string | null,
    message: string,
  ) {
    super('feedback_refused', field ? `${field}: ${message}` : message);
  }
}

export interface FeedbackMessage {
  id: number;
  fromOperator: boolean;
  body: string;
  createdAt: Date;
}

export interface FeedbackThread {
  id: number;
  userId: string;
  username: string;
  topic: FeedbackTopic;
  page: string;
  status: 'open' | 'closed';
  createdAt: Date;
  updatedAt: Date;
  messages: FeedbackMessage[];
}

function checkBody(body: string): string {
  const b = body.trim();
  if (b === '') throw new FeedbackError('message', 'required');
  if (b.length > MAX_FEEDBACK_BODY)
    throw new FeedbackError('message', `longer than ${MAX_FEEDBACK_BODY} characters`);
  return b;
}

/** A site path (`/train/G1`), or refused: feedback names a page of this site, nothing else. */
function checkPage(page: string): string {
  const p = page.trim();
  if (!/^\/[^/\\]/.test(p) || p.length > 200 || /[\s<>"']/.test(p))
    throw new FeedbackError('page', 'expected a path of this site, such as /train/G1');
  return p;
}

/** Opens a thread with its first message. */
export async function openThread(
  db: Db,
  userId: string,
  input: { topic: string; page: string; message: string },
  nowMs: number,
): Promise<number> {
  if (!(FEEDBACK_TOPICS as readonly string[]).includes(input.topic))
    throw new FeedbackError('topic', `expected one of ${FEEDBACK_TOPICS.join(', ')}`);
  const page = checkPage(input.page);
  const body = checkBody(input.message);
  return db.transaction(async (tx) => {
    // One account's threads are counted under a lock of that account, so concurrent posts
    // cannot pass the daily bound together.
    await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
    const n = await tx.query<{ n: string }>(
      `SELECT count(*) AS n FROM feedback_threads
        WHERE user_id = $1 AND created_at > to_timestamp($2 / 1000.0) - interval '1 day'`,
      [userId, nowMs],
    );
    if (Number(n.rows[0]!.n) >= MAX_THREADS_PER_DAY)
      throw new FeedbackError(null, `at most ${MAX_THREADS_PER_DAY} new threads a day`);
    const t = await tx.query<{ id: string }>(
      `INSERT INTO feedback_threads (user_id, topic, page, created_at, updated_at)
       VALUES ($1, $2, $3, to_timestamp($4 / 1000.0), to_timestamp($4 / 1000.0)) RETURNING id`,
      [userId, input.topic, page, nowMs],
    );
    const id = Number(t.rows[0]!.id);
    await tx.query(
      `INSERT INTO feedback_messages (thread_id, author_id, from_operator, body, created_at)
       VALUES ($1, $2, false, $3, to_timestamp($4 / 1000.0))`,
      [id, userId, body, nowMs],
    );
    return id;
  });
}

/**
 * Adds a message to a thread: by its author, or by an operator. Anyone else finds no such
 * thread (a reader never learns of another's).
 */
export async function replyToThread(
  db: Db,
  threadId: number,
  author: { userId: string; operator: boolean },
  message: string,
  nowMs: number,
): Promise<void> {
  const body = checkBody(message);
  await db.transaction(async (tx) => {
    const t = await tx.query(
      `UPDATE feedback_threads SET updated_at = to_timestamp($3 / 1000.0)
        WHERE id = $1 AND ($2::boolean OR user_id = $4) RETURNING id`,
      [threadId, author.operator, nowMs, author.userId],
    );
    if (t.rowCount === 0) throw new FeedbackError('thread', 'no such thread');
    await tx.query(
      `INSERT INTO feedback_messages (thread_id, author_id, from_operator, body, created_at)
       VALUES ($1, $2, $3, $4, to_timestamp($5 / 1000.0))`,
      [threadId, author.userId, author.operator, body, nowMs],
    );
  });
}

/** Threads (newest activity first) of one user, or every thread for the operators. */
export async function listThreads(
  db: Queryable,
  options: { userId?: string; threadId?: number; limit?: number } = {},
): Promise<FeedbackThread[]> {
  const r = await db.query<{
    id: string;
    user_id: string;
    username: string;
    topic: FeedbackTopic;
    page: string;
    status: 'open' | 'closed';
    created_at: Date;
    updated_at: Date;
  }>(
    `SELECT t.id, t.user_id::text, u.username, t.topic, t.page, t.status, t.created_at, t.updated_at
       FROM feedback_threads t JOIN users u ON u.id = t.user_id
      WHERE ($1::bigint IS NULL OR t.user_id = $1) AND ($2::bigint IS NULL OR t.id = $2)
      ORDER BY t.updated_at DESC, t.id DESC LIMIT $3`,
    [options.userId ?? null, options.threadId ?? null, options.limit ?? 100],
  );
  const ids = r.rows.map((x) => x.id);
  const m = await db.query<{
    id: string;
    thread_id: string;
    from_operator: boolean;
    body: string;
    created_at: Date;
  }>(
    `SELECT id, thread_id, from_operator, body, created_at FROM feedback_messages
      WHERE thread_id = ANY ($1::bigint[]) ORDER BY id`,
    [ids],
  );
  const byThread = new Map<string, FeedbackMessage[]>();
  for (const x of m.rows) {
    const list = byThread.get(x.thread_id) ?? [];
    list.push({
      id: Number(x.id),
      fromOperator: x.from_operator,
      body: x.body,
      createdAt: new Date(x.created_at),
    });
    byThread.set(x.thread_id, list);
  }
  return r.rows.map((x) => ({
    id: Number(x.id),
    userId: x.user_id,
    username: x.username,
    topic: x.topic,
    page: x.page,
    status: x.status,
    createdAt: new Date(x.created_at),
    updatedAt: new Date(x.updated_at),
    messages: byThread.get(x.id) ?? [],
  }));
}
