-- Up Migration

-- Other servers of emutrack's own API that this one pulls records from (docs/sources.md). A
-- source is configuration: what to ask, how often and how fast, and how far its last pull got.
-- api_key_env is the NAME of an environment variable that holds the key: the key itself is
-- never stored here.
CREATE TABLE sources (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$'),
  kind text NOT NULL CHECK (kind IN ('v2')),
  base_url text NOT NULL,
  api_key_env text CHECK (api_key_env ~ '^[A-Za-z_][A-Za-z0-9_]{0,127}$'),
  -- A cron expression (Shanghai time) for the scheduler; NULL = pulled by hand only.
  schedule text,
  rate double precision NOT NULL DEFAULT 1 CHECK (rate > 0),
  trust double precision NOT NULL DEFAULT 1 CHECK (trust >= 0),
  last_success_at timestamptz,
  -- One line: why the last pull stopped short (NULL after a pull that completed).
  last_error text,
  last_error_at timestamptz,
  lines_taken bigint NOT NULL DEFAULT 0,
  lines_refused bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Where a source's pull of one service day stands: the cursor of the next page to ask for
-- while the day is pulled (a pull cut half-way resumes there), and the first page's ETag once
-- the day was pulled to its end (the next pull asks If-None-Match and stops at a 304).
CREATE TABLE source_day_cursors (
  source_id bigint NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  service_day integer NOT NULL,
  next_cursor text NOT NULL DEFAULT '',
  completed boolean NOT NULL DEFAULT false,
  first_page_etag text,
  pages integer NOT NULL DEFAULT 0,
  lines_taken integer NOT NULL DEFAULT 0,
  lines_refused integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, service_day)
);

-- Down Migration
DROP TABLE source_day_cursors;
DROP TABLE sources;
