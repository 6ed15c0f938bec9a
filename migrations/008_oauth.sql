-- Up Migration

-- OAuth 2.0 authorization server (src/oauth). Clients are public (no secret: PKCE is the proof).
-- Access tokens are credentials (issuer 'oauth') of migration 007; this migration only holds
-- what OAuth adds around them.
CREATE TABLE oauth_clients (
  -- The public client_id.
  id text PRIMARY KEY,
  owner_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  homepage_url text,
  -- Compared string for string with the authorization and token requests' redirect_uri.
  redirect_uris text[] NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  status_changed_at timestamptz,
  status_changed_by bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_clients_owner ON oauth_clients (owner_id, created_at);

-- One row per scope a client requests, with its review by an administrator.
CREATE TABLE oauth_client_scopes (
  client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  scope text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  requested_at timestamptz NOT NULL DEFAULT now(),
  reviewed_at timestamptz,
  reviewed_by bigint REFERENCES users (id) ON DELETE SET NULL,
  PRIMARY KEY (client_id, scope)
);
-- The administrators' queue.
CREATE INDEX oauth_client_scopes_pending ON oauth_client_scopes (client_id) WHERE status = 'pending';

-- Authorization codes: only the SHA-256 of the code is kept. A consumed code stays (with the
-- token it gave) until the clean-up removes it, so that a replay can revoke that token.
CREATE TABLE oauth_codes (
  code_hash bytea PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  scopes text[] NOT NULL,
  -- PKCE S256: base64url(SHA-256(code_verifier)).
  code_challenge text NOT NULL,
  nonce text,
  -- When the user last signed in (the id_token's auth_time).
  auth_time timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  credential_id bigint REFERENCES credentials (id) ON DELETE SET NULL
);
CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);
CREATE INDEX oauth_codes_client ON oauth_codes (client_id);

-- Remembered consent: a user allowed a client this set of scopes (sorted) until expires_at.
CREATE TABLE oauth_consents (
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  granted_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, client_id, scopes)
);
CREATE INDEX oauth_consents_expires ON oauth_consents (expires_at);
CREATE INDEX oauth_consents_client ON oauth_consents (client_id);

-- id_token signing keys. The private key is a JWE (PBES2 + A256GCM) encrypted with the
-- configured secret, so a copy of the database alone does not give it away. The newest key
-- whose retired_at is null signs; a retired key stays published until publish_until (its last
-- token's expiry).
CREATE TABLE oauth_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL CHECK (alg = 'RS256'),
  public_jwk jsonb NOT NULL,
  private_jwe text NOT NULL,
  created_at timestamptz NOT NULL,
  retired_at timestamptz,
  publish_until timestamptz
);

-- The tokens of a client: revoked together (client disabled or deleted, authorization revoked).
CREATE INDEX credentials_oauth_client ON credentials (oauth_client_id, user_id)
  WHERE oauth_client_id IS NOT NULL;
ALTER TABLE credentials
  ADD CONSTRAINT credentials_oauth_client_fkey FOREIGN KEY (oauth_client_id)
  REFERENCES oauth_clients (id) ON DELETE SET NULL;

-- Down Migration
ALTER TABLE credentials DROP CONSTRAINT credentials_oauth_client_fkey;
DROP INDEX credentials_oauth_client;
DROP TABLE oauth_signing_keys;
DROP TABLE oauth_consents;
DROP TABLE oauth_codes;
DROP TABLE oauth_client_scopes;
DROP TABLE oauth_clients;
