-- Up Migration

-- Corrections of the record by operators (CLI) and administrators (API): one row each, never
-- changed but for nothing (an undo is a correction of its own, naming the one it undoes), so the
-- table is the audit trail: who, when, what and why. Observations stay append-only; the build
-- reads them through the corrections in force (retracted_observations, emu_merges below).
CREATE TABLE corrections (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('retract', 'merge-emu', 'undo')),
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
  -- Who: an operator at a shell ('cli', actor_name the account name) or an administrator
  -- through the API ('api', actor_user_id and their username as it was).
  actor_via text NOT NULL CHECK (actor_via IN ('cli', 'api')),
  actor_name text NOT NULL,
  actor_user_id bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- retract: the observations retracted, and how they were named (by id, or by source + ref).
  observation_ids bigint[],
  source text,
  ref text,
  -- merge-emu: the unit merged and the unit it was merged into.
  from_emu_id integer REFERENCES emus (id),
  into_emu_id integer REFERENCES emus (id),
  -- undo: the correction undone; a correction is undone at most once.
  undoes bigint UNIQUE REFERENCES corrections (id),
  -- The service days this correction marked stale.
  service_days integer[] NOT NULL DEFAULT '{}',
  CHECK (kind <> 'retract' OR cardinality(observation_ids) > 0),
  CHECK (kind <> 'merge-emu' OR (from_emu_id IS NOT NULL AND into_emu_id IS NOT NULL
                                 AND from_emu_id <> into_emu_id)),
  CHECK (kind <> 'undo' OR undoes IS NOT NULL)
);
CREATE INDEX corrections_created ON corrections (created_at DESC, id DESC);

-- Retractions in force: these sightings count nowhere (records, and so exports, reference
-- models and circulations; the pairs the inference learns). A restore (undo) deletes the row.
CREATE TABLE retracted_observations (
  observation_id bigint PRIMARY KEY,
  -- The observation's stored day, for the build's digest of its inputs.
  service_day integer NOT NULL,
  correction_id bigint NOT NULL REFERENCES corrections (id)
);
CREATE INDEX retracted_observations_day ON retracted_observations (service_day);

-- Merges in force: sightings of from_emu_id count for target_emu_id (into_emu_id, or the unit
-- that one was merged into in turn), and its codes find the target. An undo deletes the row.
CREATE TABLE emu_merges (
  from_emu_id integer PRIMARY KEY REFERENCES emus (id),
  into_emu_id integer NOT NULL REFERENCES emus (id),
  target_emu_id integer NOT NULL REFERENCES emus (id),
  correction_id bigint NOT NULL REFERENCES corrections (id)
);
CREATE INDEX emu_merges_target ON emu_merges (target_emu_id);

-- Down Migration
DROP TABLE emu_merges;
DROP TABLE retracted_observations;
DROP TABLE corrections;
