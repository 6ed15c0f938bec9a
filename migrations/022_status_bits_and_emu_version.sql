-- Up Migration

-- What a sighting may say about the unit's run besides the pair (issue 22): its place in the
-- formation (`single`, or the `first` or `second` unit of a coupled run), whether it replaced a
-- failed unit (`fault`), whether it stood by as a hot spare (`spare`). NULL = the sighting did
-- not say. The day build turns them into the record's status bits 0x04/0x06, 0x08 and 0x10 by
-- the rule written in src/records/status-bits.ts.
ALTER TABLE observations
  ADD COLUMN position text CHECK (position IN ('single', 'first', 'second')),
  ADD COLUMN fault boolean,
  ADD COLUMN spare boolean;

-- A version of the EMU register (codes, aliases, fleet details), in page_versions beside
-- 'exports': the search index (src/search) is rebuilt when it moves. Bumped by statement
-- triggers in the writer's transaction, only when a statement did change rows (registrations
-- are INSERT ... ON CONFLICT DO NOTHING, nearly always nothing once a fleet is known), so the
-- one row is locked only by the rare statement that adds a unit or an alias.
INSERT INTO page_versions (name, version) VALUES ('emus', 0);

CREATE FUNCTION emus_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM changed_rows) THEN
    UPDATE page_versions SET version = version + 1 WHERE name = 'emus';
  END IF;
  RETURN NULL;
END;
$$;
CREATE FUNCTION emus_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE page_versions SET version = version + 1 WHERE name = 'emus';
  RETURN NULL;
END;
$$;
CREATE TRIGGER emus_inserted AFTER INSERT ON emus
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION emus_rows_changed();
CREATE TRIGGER emus_updated AFTER UPDATE ON emus
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION emus_rows_changed();
CREATE TRIGGER emus_deleted AFTER DELETE ON emus
  FOR EACH STATEMENT EXECUTE FUNCTION emus_changed();
CREATE TRIGGER emu_aliases_inserted AFTER INSERT ON emu_aliases
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION emus_rows_changed();
CREATE TRIGGER emu_aliases_deleted AFTER DELETE ON emu_aliases
  FOR EACH STATEMENT EXECUTE FUNCTION emus_changed();

-- Down Migration
DROP TRIGGER emu_aliases_deleted ON emu_aliases;
DROP TRIGGER emu_aliases_inserted ON emu_aliases;
DROP TRIGGER emus_deleted ON emus;
DROP TRIGGER emus_updated ON emus;
DROP TRIGGER emus_inserted ON emus;
DROP FUNCTION emus_changed();
DROP FUNCTION emus_rows_changed();
DELETE FROM page_versions WHERE name = 'emus';
ALTER TABLE observations DROP COLUMN spare, DROP COLUMN fault, DROP COLUMN position;
