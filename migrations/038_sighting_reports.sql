-- Up Migration

-- Moderators: a role between user and administrator. They decide sighting reports; an
-- administrator has every power a moderator has.
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('user', 'moderator', 'admin'));

-- A person's report that a unit ran a train on a service day. It never counts by itself: it
-- becomes an observation of source 'reports' (ref = the report's id, so it counts once) only
-- when corroborated by another source, by an independent second report, or by a moderator.
CREATE TABLE sighting_reports (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The reporter's address as the limits count it (an IPv6 address by its /64).
  address text NOT NULL,
  train_code text NOT NULL,
  train_codes text[] NOT NULL,
  -- The unit as written (canonical form) and the unit it names at the time of the report.
  emu_code text NOT NULL,
  emu_id integer REFERENCES emus (id),
  service_day integer NOT NULL,
  -- Unix seconds, when the reporter said when they saw it.
  observed_at bigint,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'refused')),
  -- Why it is pending, accepted or refused, in words shown to the reporter and moderators.
  reason text,
  -- Whether only a moderator may decide it (a new or banned account, a reporter of low trust).
  needs_moderator boolean NOT NULL DEFAULT false,
  -- What corroborated it: another source's sighting, a second report, or a moderator.
  corroborated_by text CHECK (corroborated_by IN ('sighting', 'report', 'moderator')),
  -- The observation it became (its first acceptance; a refusal after that retracts it).
  observation_id bigint,
  -- Evidence: the stored photo (re-encoded, metadata stripped) and the QR text read from it.
  photo_ref text,
  qr_text text CHECK (length(qr_text) <= 500),
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  UNIQUE (user_id, service_day, train_code, emu_code)
);
CREATE INDEX sighting_reports_pair ON sighting_reports (service_day, emu_code);
CREATE INDEX sighting_reports_status ON sighting_reports (status, id);

-- A report's photo, as kept: re-encoded JPEG without metadata (src/domain/reports/report-photo.ts).
CREATE TABLE report_photos (
  report_id bigint PRIMARY KEY REFERENCES sighting_reports (id) ON DELETE CASCADE,
  jpeg bytea NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Reports made per account and per address per Shanghai day: one row per key and day, bumped
-- by one conditional upsert so two concurrent reports cannot both take the last place.
CREATE TABLE sighting_report_counts (
  kind text NOT NULL CHECK (kind IN ('user', 'address')),
  key text NOT NULL,
  day integer NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (kind, key, day)
);

-- A reporter's trust: how many of their reports were corroborated, and how many refused.
CREATE VIEW reporter_trust AS
  SELECT user_id,
         count(*) FILTER (WHERE status = 'accepted') AS corroborated,
         count(*) FILTER (WHERE status = 'refused') AS refused,
         count(*) FILTER (WHERE status = 'pending') AS pending
    FROM sighting_reports GROUP BY user_id;

-- A moderator's decision is a correction: in the same audit trail, undone the same way.
ALTER TABLE corrections DROP CONSTRAINT corrections_kind_check;
ALTER TABLE corrections ADD CONSTRAINT corrections_kind_check
  CHECK (kind IN ('retract', 'merge-emu', 'undo', 'report-accept', 'report-refuse'));
ALTER TABLE corrections
  ADD COLUMN report_id bigint REFERENCES sighting_reports (id) ON DELETE SET NULL,
  -- The report's status before the decision, which an undo puts back.
  ADD COLUMN report_status_before text;

-- Down Migration
ALTER TABLE corrections DROP COLUMN report_status_before, DROP COLUMN report_id;
DELETE FROM corrections WHERE kind IN ('report-accept', 'report-refuse');
ALTER TABLE corrections DROP CONSTRAINT corrections_kind_check;
ALTER TABLE corrections ADD CONSTRAINT corrections_kind_check
  CHECK (kind IN ('retract', 'merge-emu', 'undo'));
DROP VIEW reporter_trust;
DROP TABLE sighting_report_counts;
DROP TABLE report_photos;
DROP TABLE sighting_reports;
UPDATE users SET role = 'user' WHERE role = 'moderator';
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('user', 'admin'));
