-- Up Migration

-- Feedback from signed-in readers: a thread on one topic, tied to the page it came from,
-- between its author and the operators (moderators and administrators), who answer in it.
CREATE TABLE feedback_threads (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  topic text NOT NULL CHECK (topic IN ('missing-assignment', 'wrong-assignment', 'coupled-unit',
                                       'wrong-circulation', 'wrong-allocation', 'more-quota')),
  -- The site path the feedback is about (/train/G1), never a full address.
  page text NOT NULL CHECK (page ~ '^/[^/]' AND length(page) <= 200),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feedback_threads_user ON feedback_threads (user_id, id DESC);
CREATE INDEX feedback_threads_updated ON feedback_threads (updated_at DESC, id DESC);

CREATE TABLE feedback_messages (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  thread_id bigint NOT NULL REFERENCES feedback_threads (id) ON DELETE CASCADE,
  author_id bigint REFERENCES users (id) ON DELETE SET NULL,
  -- Whether an operator wrote it (shown as the operators, not by name).
  from_operator boolean NOT NULL,
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feedback_messages_thread ON feedback_messages (thread_id, id);

-- Down Migration
DROP TABLE feedback_messages;
DROP TABLE feedback_threads;
