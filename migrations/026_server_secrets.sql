-- Up Migration

-- Random keys the server makes once and every process shares, by name: today
-- 'form_csrf_hmac_key' (the HMAC key of the forms' CSRF tokens, src/api/form-csrf.ts). A key is
-- inserted by the first process that needs it (ON CONFLICT DO NOTHING) and read by all.
CREATE TABLE server_secrets (
  name text PRIMARY KEY,
  value bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE server_secrets;
