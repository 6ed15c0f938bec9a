-- Up Migration

-- Accounts (users) and their credentials. A credential is one kind of thing whatever its issuer:
-- a web session (webapp), an API key (api) or an OAuth access token (oauth). Only a hash of the
-- secret is stored: secrets are 24+ random bytes, so one SHA-256 pass is enough (nothing to
-- brute-force; a slow hash would only slow every request).
CREATE TABLE users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  username text NOT NULL,
  password_hash text NOT NULL,
  role text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
  banned_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz NOT NULL DEFAULT now()
);
-- Usernames are unique regardless of case.
CREATE UNIQUE INDEX users_username_key ON users (lower(username));

CREATE TABLE credentials (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  issuer text NOT NULL CHECK (issuer IN ('webapp', 'api', 'oauth')),
  -- Public handle for revocation and listings; never the secret.
  revoke_id text NOT NULL UNIQUE,
  -- SHA-256 of the whole secret as written ("<prefix>_<base64url>").
  secret_hash bytea NOT NULL UNIQUE,
  masked text NOT NULL,
  name text NOT NULL DEFAULT '',
  scopes text[] NOT NULL,
  active_from timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  daily_token_limit integer NOT NULL CHECK (daily_token_limit >= 0),
  -- The OAuth client an oauth credential was issued to (constraint added with the OAuth tables).
  oauth_client_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX credentials_user ON credentials (user_id, created_at DESC);

-- Failed sign-ins, counted per account (lower-case username) and per client address over a
-- sliding window to refuse guessing; rows older than the window are deleted as new ones come.
CREATE TABLE sign_in_failures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  username_key text NOT NULL,
  address text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_username ON sign_in_failures (username_key, failed_at);
CREATE INDEX sign_in_failures_address ON sign_in_failures (address, failed_at);

-- Down Migration
DROP TABLE sign_in_failures;
DROP TABLE credentials;
DROP TABLE users;
