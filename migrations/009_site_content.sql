-- Up Migration

-- The documentation site (src/content, src/site): WordPress's content model in its own tables.
-- One table holds every post-like item (posts, pages, reusable blocks, menu items, revisions,
-- autosaves, and the media and templates of the site's other modules), as WordPress does, so
-- they share one id space: `featured_media`, `parent` and `_embed` links name any of them.
CREATE TABLE site_posts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- post, page, wp_block, nav_menu_item, revision (autosaves are revisions with is_autosave),
  -- and the types other modules add (attachment, wp_template, ...).
  type text NOT NULL CHECK (type ~ '^[a-z0-9_-]{1,20}$'),
  status text NOT NULL DEFAULT 'draft',
  author bigint REFERENCES users (id) ON DELETE SET NULL,
  -- Null = no date chosen yet (a draft floats: its date is "now" until it is published).
  date_gmt timestamptz,
  modified_gmt timestamptz NOT NULL DEFAULT now(),
  slug text NOT NULL DEFAULT '',
  title text NOT NULL DEFAULT '',
  content text NOT NULL DEFAULT '',
  excerpt text NOT NULL DEFAULT '',
  password text NOT NULL DEFAULT '',
  parent bigint NOT NULL DEFAULT 0,
  menu_order integer NOT NULL DEFAULT 0,
  comment_status text NOT NULL DEFAULT 'closed',
  ping_status text NOT NULL DEFAULT 'closed',
  format text NOT NULL DEFAULT 'standard',
  sticky boolean NOT NULL DEFAULT false,
  template text NOT NULL DEFAULT '',
  featured_media bigint NOT NULL DEFAULT 0,
  meta jsonb NOT NULL DEFAULT '{}',
  -- The status an item had before it was trashed (restored on untrash).
  trashed_from text,
  is_autosave boolean NOT NULL DEFAULT false,
  -- Fields of one type only (menu items: type, object, url, ...; media: mime type, sizes, ...).
  extra jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Slugs are unique per type (revisions excepted: they copy their parent's).
CREATE UNIQUE INDEX site_posts_slug ON site_posts (type, slug)
  WHERE slug <> '' AND type <> 'revision';
CREATE INDEX site_posts_list ON site_posts (type, status, date_gmt DESC, id DESC);
CREATE INDEX site_posts_parent ON site_posts (parent, type) WHERE parent <> 0;
CREATE INDEX site_posts_author ON site_posts (author);

-- Categories, tags, menus (nav_menu) and other modules' taxonomies.
CREATE TABLE site_terms (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  taxonomy text NOT NULL,
  name text NOT NULL,
  slug text NOT NULL,
  description text NOT NULL DEFAULT '',
  parent bigint NOT NULL DEFAULT 0,
  meta jsonb NOT NULL DEFAULT '{}',
  extra jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX site_terms_slug ON site_terms (taxonomy, slug);

CREATE TABLE site_term_relationships (
  post_id bigint NOT NULL REFERENCES site_posts (id) ON DELETE CASCADE,
  term_id bigint NOT NULL REFERENCES site_terms (id) ON DELETE CASCADE,
  PRIMARY KEY (post_id, term_id)
);
CREATE INDEX site_term_relationships_term ON site_term_relationships (term_id, post_id);

-- An account's role on the site; accounts without a row: administrator for admins, else subscriber.
CREATE TABLE site_roles (
  user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('administrator', 'editor', 'author', 'contributor', 'subscriber')),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Application passwords (HTTP Basic for WordPress clients). The password is 24 random characters
-- (about 143 bits) shown once; only its SHA-256 is kept, as for credentials (nothing to guess).
CREATE TABLE site_app_passwords (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  app_id text NOT NULL DEFAULT '',
  name text NOT NULL,
  password_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  last_ip text
);
CREATE INDEX site_app_passwords_user ON site_app_passwords (user_id, created_at);

-- Site settings (title, tagline, the nonce key, whether the first-start contents were written).
CREATE TABLE site_options (
  name text PRIMARY KEY,
  value jsonb NOT NULL
);

-- Down Migration
DROP TABLE site_options;
DROP TABLE site_app_passwords;
DROP TABLE site_roles;
DROP TABLE site_term_relationships;
DROP TABLE site_terms;
DROP TABLE site_posts;
