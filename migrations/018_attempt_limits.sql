-- Up Migration

-- Attempt limits (sign-in, application passwords, password change, registration): one row per
-- limited key, e.g. ('sign_in', 'account:alice address:203.0.113.5') or ('register',
-- 'address:203.0.113.5'). An attempt is counted and checked in one step (the row is locked, the
-- count raised and the next allowed time set before the password is even tried), so concurrent
-- attempts cannot all pass a check made before any of them is counted. After `free` attempts
-- each further one waits twice as long as the one before (exponential backoff, capped); a
-- success resets the key where the rule says so; a key quiet for long enough starts afresh.
-- Replaces sign_in_failures (a read-then-write count that concurrent sign-ins raced past).
CREATE TABLE attempt_limits (
  scope text NOT NULL,
  key text NOT NULL,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_attempt_at timestamptz,
  -- No attempt for this key is tried before this time (null: at once).
  blocked_until timestamptz,
  PRIMARY KEY (scope, key)
);
-- Forgetting quiet keys scans by age.
CREATE INDEX attempt_limits_last_attempt ON attempt_limits (last_attempt_at);

DROP TABLE sign_in_failures;

-- Down Migration
CREATE TABLE sign_in_failures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  username_key text NOT NULL,
  address text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_username ON sign_in_failures (username_key, failed_at);
CREATE INDEX sign_in_failures_address ON sign_in_failures (address, failed_at);
DROP TABLE attempt_limits;
