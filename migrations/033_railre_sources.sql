-- Up Migration

-- A second kind of source: rail.re's JSON API (docs/sources.md), asked train by train. `trains`
-- is the list of train numbers a railre source asks for when it is given one (NULL = the trains
-- in force in the timetables); v2 sources never have one.
ALTER TABLE sources DROP CONSTRAINT sources_kind_check;
ALTER TABLE sources ADD CONSTRAINT sources_kind_check CHECK (kind IN ('v2', 'railre'));
ALTER TABLE sources ADD COLUMN trains text[]
  CHECK (trains IS NULL OR (kind = 'railre' AND cardinality(trains) BETWEEN 1 AND 5000));

-- Down Migration
ALTER TABLE sources DROP COLUMN trains;
DELETE FROM sources WHERE kind = 'railre';
ALTER TABLE sources DROP CONSTRAINT sources_kind_check;
ALTER TABLE sources ADD CONSTRAINT sources_kind_check CHECK (kind IN ('v2'));
