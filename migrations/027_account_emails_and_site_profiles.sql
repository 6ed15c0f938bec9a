-- Up Migration

-- An account's e-mail address (optional: accounts made before it have none). Unique regardless
-- of case, as usernames: WordPress clients sign in with either (application passwords), so one
-- address may name one account only.
ALTER TABLE users ADD COLUMN email text;
CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL;

-- What the documentation site shows of an account beyond its name (WordPress's user fields,
-- written through /wp/v2/users): display name (null = the username), names, nickname (null =
-- the username), description, URL, locale ('' = the site's), and user meta the site registers
-- (the block editor's persisted_preferences). No row = every default.
CREATE TABLE site_user_profiles (
  user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  display_name text,
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  nickname text,
  description text NOT NULL DEFAULT '',
  url text NOT NULL DEFAULT '',
  locale text NOT NULL DEFAULT '',
  meta jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Authors' display names appear in /wp/v2/users and embedded authors.
CREATE TRIGGER site_user_profiles_content_changed
  AFTER INSERT OR UPDATE OR DELETE ON site_user_profiles
  FOR EACH ROW EXECUTE FUNCTION site_content_changed();
CREATE TRIGGER site_user_profiles_content_truncated AFTER TRUNCATE ON site_user_profiles
  FOR EACH STATEMENT EXECUTE FUNCTION site_content_changed();

-- Down Migration
DROP TABLE site_user_profiles;
DROP INDEX users_email_key;
ALTER TABLE users DROP COLUMN email;
