-- Up Migration

-- A number that changes with every statement that changes train_reference_models (the nightly
-- refresh, src/records/reference-models.ts), as timetable_changes (004) does for the coverage:
-- the API keeps trains' reference models while it reads the same number
-- (src/api/reference-model-cache.ts), and reads both numbers in one statement with a station's
-- board. The update joins the writer's transaction, so readers see the new number exactly when
-- they see the new models; refreshes run one at a time (the nightly job), so the one row adds
-- no waiting.
CREATE TABLE reference_model_changes (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  version bigint NOT NULL
);
INSERT INTO reference_model_changes (version) VALUES (0);
CREATE FUNCTION reference_models_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE reference_model_changes SET version = version + 1;
  RETURN NULL;
END;
$$;
CREATE TRIGGER reference_models_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON train_reference_models
  FOR EACH STATEMENT EXECUTE FUNCTION reference_models_changed();

-- Down Migration
DROP TRIGGER reference_models_changed ON train_reference_models;
DROP FUNCTION reference_models_changed();
DROP TABLE reference_model_changes;
