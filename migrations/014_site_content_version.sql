-- Up Migration

-- The documentation site's content version (src/site/cache): the site's REST edge keeps
-- rendered responses while the version they were rendered under is current. Every transaction
-- that writes a table a response or page is rendered from adds one row here (its transaction
-- id, once), from a row trigger in the writer's own transaction; the version is `base` plus the
-- rows visible. So a reader sees the new number exactly when it sees the new data, in any
-- process and on PGlite, and writers never wait on each other for it (no shared counter row:
-- an insert of one's own key cannot block, so no new lock order and no deadlock).
-- Compaction (folding committed rows into `base` in one transaction) keeps the sum unchanged.
CREATE TABLE site_content_changes (
  xid bigint PRIMARY KEY
);
CREATE TABLE site_content_version (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  base bigint NOT NULL
);
INSERT INTO site_content_version (base) VALUES (0);

CREATE FUNCTION site_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO site_content_changes (xid) VALUES (txid_current()) ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;

-- Row triggers (a statement that changes no row, e.g. publishing due posts when none is due,
-- leaves the version alone); TRUNCATE has only statement triggers.
CREATE TRIGGER site_posts_content_changed AFTER INSERT OR UPDATE OR DELETE ON site_posts
  FOR EACH ROW EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_posts_content_truncated AFTER TRUNCATE ON site_posts
  FOR EACH STATEMENT EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_terms_content_changed AFTER INSERT OR UPDATE OR DELETE ON site_terms
  FOR EACH ROW EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_terms_content_truncated AFTER TRUNCATE ON site_terms
  FOR EACH STATEMENT EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_term_relationships_content_changed
  AFTER INSERT OR UPDATE OR DELETE ON site_term_relationships
  FOR EACH ROW EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_term_relationships_content_truncated AFTER TRUNCATE ON site_term_relationships
  FOR EACH STATEMENT EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_roles_content_changed AFTER INSERT OR UPDATE OR DELETE ON site_roles
  FOR EACH ROW EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_roles_content_truncated AFTER TRUNCATE ON site_roles
  FOR EACH STATEMENT EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_options_content_changed AFTER INSERT OR UPDATE OR DELETE ON site_options
  FOR EACH ROW EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_options_content_truncated AFTER TRUNCATE ON site_options
  FOR EACH STATEMENT EXECUTE FUNCTION site_content_changed();
-- Authors' names and slugs appear in /wp/v2/users and embedded authors.
CREATE TRIGGER users_site_content_changed AFTER INSERT OR UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER users_site_content_truncated AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION site_content_changed();

-- The next scheduled publication (a kept response ends there): one probe.
CREATE INDEX site_posts_future ON site_posts (date_gmt) WHERE status = 'future';

-- Down Migration
DROP INDEX site_posts_future;
DROP TRIGGER users_site_content_truncated ON users;
DROP TRIGGER users_site_content_changed ON users;
DROP TRIGGER site_options_content_truncated ON site_options;
DROP TRIGGER site_options_content_changed ON site_options;
DROP TRIGGER site_roles_content_truncated ON site_roles;
DROP TRIGGER site_roles_content_changed ON site_roles;
DROP TRIGGER site_term_relationships_content_truncated ON site_term_relationships;
DROP TRIGGER site_term_relationships_content_changed ON site_term_relationships;
DROP TRIGGER site_terms_content_truncated ON site_terms;
DROP TRIGGER site_terms_content_changed ON site_terms;
DROP TRIGGER site_posts_content_truncated ON site_posts;
DROP TRIGGER site_posts_content_changed ON site_posts;
DROP FUNCTION site_content_changed();
DROP TABLE site_content_version;
DROP TABLE site_content_changes;
