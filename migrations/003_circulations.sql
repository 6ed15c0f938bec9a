-- Up Migration

-- Circulations (src/circulation). Inference runs write their routes under their own run id and
-- only then move the `circulation_current` pointer, in one transaction together with the
-- official-table checks against those routes: a reader that follows the pointer sees one whole
-- run, the old one until the swap commits. The run before the current one is kept until the next
-- swap, so a reader half-way through a multi-statement read never loses its rows.

-- One inference run over a window of service days.
CREATE TABLE circulation_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The window's first and last service day (inclusive).
  window_start_day integer NOT NULL,
  window_end_day integer NOT NULL,
  -- The same window in Unix seconds: local midnight starting the first day, and local midnight
  -- ending the last one (the metadata's windowStart / windowEnd).
  window_start_at bigint NOT NULL,
  window_end_at bigint NOT NULL,
  threshold double precision NOT NULL,
  min_support integer NOT NULL,
  -- What the run saw: runs (a train run by one EMU on one day, paired numbers counted once),
  -- runs ordered by their first sighting because they had no timetable yet, links seen and kept.
  runs integer NOT NULL DEFAULT 0,
  runs_ordered_by_sighting integer NOT NULL DEFAULT 0,
  links_seen integer NOT NULL DEFAULT 0,
  links_kept integer NOT NULL DEFAULT 0,
  routes integer NOT NULL DEFAULT 0,
  loop_breaks integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CHECK (window_end_day >= window_start_day)
);

-- The run readers use: exactly one row once a run has finished.
CREATE TABLE circulation_current (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  run_id bigint NOT NULL REFERENCES circulation_runs (id),
  swapped_at timestamptz NOT NULL DEFAULT now()
);

-- A chain of kept links. route_id is a hash of the ordered node keys (of a loop: of its
-- rotation that starts at the smallest key), so it stays the same across runs while the trains
-- are unchanged.
CREATE TABLE circulation_routes (
  run_id bigint NOT NULL REFERENCES circulation_runs (id) ON DELETE CASCADE,
  route_id text NOT NULL,
  node_count integer NOT NULL,
  contains_loop_break boolean NOT NULL,
  -- Over the links kept in the route (null for a single-node route).
  lowest_link_weight double precision,
  lowest_link_support integer,
  -- The link a loop was cut at (its weakest), when contains_loop_break.
  loop_break_weight double precision,
  loop_break_support integer,
  PRIMARY KEY (run_id, route_id)
);

-- The trains of a route in running order. next_* describe the link to the following node
-- (null on the last node; on a cut loop the last node's link back to the first is the cut one).
CREATE TABLE circulation_route_nodes (
  run_id bigint NOT NULL,
  route_id text NOT NULL,
  position integer NOT NULL,
  -- Every number the run carries, in running order, joined by '/': G1234, G4340/G4337.
  node_key text NOT NULL,
  train_codes text[] NOT NULL,
  next_weight double precision,
  next_forward_weight double precision,
  next_backward_weight double precision,
  next_support integer,
  PRIMARY KEY (run_id, route_id, position),
  FOREIGN KEY (run_id, route_id) REFERENCES circulation_routes (run_id, route_id) ON DELETE CASCADE
);
CREATE INDEX circulation_route_nodes_codes ON circulation_route_nodes USING gin (train_codes);
CREATE INDEX circulation_route_nodes_key ON circulation_route_nodes (run_id, node_key);

-- Official circulation tables (the community format of compatibility.md), one row per distinct
-- entry: entry_key is a hash of its normalised content, so importing a file again adds nothing.
CREATE TABLE official_circulations (
  entry_key text PRIMARY KEY,
  batch_id bigint NOT NULL REFERENCES ingest_batches (id),
  file text NOT NULL,
  line integer NOT NULL,
  -- Service days; running_end NULL = open-ended (written 20991231).
  running_start integer NOT NULL,
  running_end integer,
  emu_note text NOT NULL,
  administrator text NOT NULL,
  train_no_total text NOT NULL,
  -- Set when the table is not an EMU circulation (locomotive-hauled trains, coach types): it is
  -- kept for the record but has no trains and is never checked.
  skip_reason text,
  imported_at timestamptz NOT NULL DEFAULT now()
);

-- The numbers of an official table in running order, deadheads (written with a leading 0)
-- included and marked.
CREATE TABLE official_circulation_trains (
  entry_key text NOT NULL REFERENCES official_circulations (entry_key) ON DELETE CASCADE,
  position integer NOT NULL,
  written text NOT NULL,
  train_codes text[] NOT NULL,
  node_key text NOT NULL,
  deadhead boolean NOT NULL,
  PRIMARY KEY (entry_key, position)
);
CREATE INDEX official_circulation_trains_codes ON official_circulation_trains USING gin (train_codes);

-- The check of each official table against the current inference run (replaced whenever either
-- side changes). run_id NULL: no inference run existed yet (validation_state 'unspecified').
CREATE TABLE official_circulation_checks (
  entry_key text PRIMARY KEY REFERENCES official_circulations (entry_key) ON DELETE CASCADE,
  run_id bigint REFERENCES circulation_runs (id),
  validation_state text NOT NULL
    CHECK (validation_state IN ('unspecified', 'raw_official', 'split_official', 'unmatched_official')),
  -- raw: the route that matches; unmatched: the best candidate, if any; split: see the segments.
  matched_route_id text,
  -- Links of the table (between passenger trains, as a cycle) and how many an inferred route has.
  official_links integer NOT NULL,
  confirmed_links integer NOT NULL,
  checked_at timestamptz NOT NULL DEFAULT now()
);

-- The contiguous parts of a split_official table, in the table's order (segment 0 holds its
-- first passenger train). Positions are official_circulation_trains positions, inclusive; a
-- part that wraps round the end of the table has first_position > last_position.
CREATE TABLE official_circulation_segments (
  entry_key text NOT NULL REFERENCES official_circulations (entry_key) ON DELETE CASCADE,
  segment_index integer NOT NULL,
  segment_count integer NOT NULL,
  first_position integer NOT NULL,
  last_position integer NOT NULL,
  matched_route_id text NOT NULL,
  PRIMARY KEY (entry_key, segment_index)
);

-- Down Migration
DROP TABLE official_circulation_segments;
DROP TABLE official_circulation_checks;
DROP TABLE official_circulation_trains;
DROP TABLE official_circulations;
DROP TABLE circulation_route_nodes;
DROP TABLE circulation_routes;
DROP TABLE circulation_current;
DROP TABLE circulation_runs;
