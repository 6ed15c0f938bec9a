-- Up Migration

-- The deferred row triggers of migrations 028, 029 and 031 queue one event per row written, and
-- each event runs bump_data_version at commit only to find its version bumped already: about
-- 5 microseconds a row, 47 ms of commit for a transaction that registers 4,000 units and their
-- 8,000 aliases, for one version move. A trigger's WHEN is evaluated as the row is written, not
-- deferred (CREATE TRIGGER: "the WHEN condition is not deferred"), and an event it refuses is
-- never queued. So each unkeyed version trigger now asks data_version_unqueued first, which
-- says yes once per transaction and version name: the first row queues the bump, the rest queue
-- nothing. The mark is a transaction-local setting, so it is undone with a rolled-back savepoint
-- exactly as the event it stood for is: a write after the rollback queues the bump again.
-- Written in SQL so that it is inlined into the WHEN (no function call per row).
-- The keyed triggers and those with a WHEN of their own (on daily_record_builds, one row per
-- day) stay as they are.
CREATE FUNCTION data_version_unqueued(name text) RETURNS boolean LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN current_setting('emutrack.data_version_queued_' || name, true) = '1' THEN false
              ELSE set_config('emutrack.data_version_queued_' || name, '1', true) = '1' END
$$;

-- Every deferred row trigger of bump_data_version(name) without a WHEN, recreated as it is with
-- the WHEN added (pg_get_triggerdef gives its definition, events and deferral included).
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT tg.tgname, tg.tgrelid::regclass AS rel, pg_get_triggerdef(tg.oid) AS def,
           -- The one argument, as stored: its bytes up to their NUL.
           convert_from(substring(tg.tgargs FROM 1 FOR position('\x00'::bytea IN tg.tgargs) - 1),
                        'UTF8') AS name
      FROM pg_trigger tg
     WHERE tg.tgfoid = 'bump_data_version'::regproc AND tg.tgconstraint <> 0
       AND tg.tgnargs = 1 AND tg.tgqual IS NULL
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %s', t.tgname, t.rel);
    EXECUTE replace(t.def, ' FOR EACH ROW EXECUTE FUNCTION ',
                    format(' FOR EACH ROW WHEN (data_version_unqueued(%L)) EXECUTE FUNCTION ',
                           t.name));
  END LOOP;
END;
$$;

-- Down Migration
-- Each guarded trigger's definition read before any is dropped, then run without its WHEN.
DO $$
DECLARE
  statements text;
BEGIN
  SELECT string_agg(format('DROP TRIGGER %I ON %s; ', tgname, tgrelid::regclass)
                    || regexp_replace(pg_get_triggerdef(oid),
                                      ' WHEN \(data_version_unqueued\([^)]*\)\)', ''), '; ')
    INTO statements
    FROM pg_trigger
   WHERE tgfoid = 'bump_data_version'::regproc
     AND pg_get_triggerdef(oid) LIKE '%data_version_unqueued%';
  IF statements IS NOT NULL THEN EXECUTE statements; END IF;
END;
$$;
DROP FUNCTION data_version_unqueued(text);
