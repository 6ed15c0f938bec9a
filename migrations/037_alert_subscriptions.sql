-- Up Migration

-- Alerts (src/domain/alerts): what a person asked to be told about a train, a unit or a
-- station, and by which channel. Tokens are kept as SHA-256 hashes only: the link in the mail
-- is the credential, and a copy of the database must not unsubscribe or verify anyone.
CREATE TABLE alert_subscriptions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- What the API shows: als_ + random, not the serial.
  public_id text NOT NULL UNIQUE,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('train', 'emu', 'station')),
  -- Canonical train code, EMU code or station name.
  code text NOT NULL,
  -- The EMU's id for kind 'emu' (codes have aliases; the feed names ids).
  emu_id integer REFERENCES emus (id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'webpush', 'webhook')),
  address text,
  push_subscription jsonb,
  webhook_endpoint_id bigint REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  events text[] NOT NULL,
  -- E-mail only: alerts gathered into one mail a day instead of one mail each.
  digest boolean NOT NULL DEFAULT false,
  status text NOT NULL CHECK (status IN ('unverified', 'active', 'dropped')),
  verification_token_hash bytea UNIQUE,
  unsubscribe_token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  verified_at timestamptz,
  -- Why it was dropped: the push service answered 404/410, or the mail server refused the
  -- address for good (5xx).
  dropped_reason text,
  CHECK ((channel = 'email') = (address IS NOT NULL)),
  CHECK ((channel = 'webpush') = (push_subscription IS NOT NULL)),
  CHECK ((channel = 'webhook') = (webhook_endpoint_id IS NOT NULL))
);
CREATE INDEX alert_subscriptions_user ON alert_subscriptions (user_id, id);
CREATE INDEX alert_subscriptions_target ON alert_subscriptions (kind, code) WHERE status = 'active';

-- One row per (subscription, event): the unique key is what makes an alert go out once however
-- many dispatchers see the event. Senders claim due rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE alert_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subscription_id bigint NOT NULL REFERENCES alert_subscriptions (id) ON DELETE CASCADE,
  event_key text NOT NULL,
  event_type text NOT NULL,
  -- What the alert says (kind, code, date, what changed), rendered per channel when sent.
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- When it may next be tried (a digest's: the next digest hour; a retry's: after its backoff).
  due_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  sent_at timestamptz,
  failed_at timestamptz,
  UNIQUE (subscription_id, event_key)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (due_at)
  WHERE sent_at IS NULL AND failed_at IS NULL;

-- Where the alert dispatcher is in the change feed (record_changes, migration 023); it starts
-- with the changes made after alerts exist.
CREATE TABLE alert_dispatch_state (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  position bigint NOT NULL,
  record_id bigint NOT NULL
);
INSERT INTO alert_dispatch_state (position, record_id)
SELECT k.position,
       coalesce((SELECT max(record_id) FROM record_changes c WHERE c.position = k.position), 0)
  FROM record_change_clock k;

-- A unit's depot is not in the change feed: a trigger writes each move here in the writer's
-- transaction, and the dispatcher claims and deletes the rows it turns into deliveries.
CREATE TABLE alert_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION alert_emu_moved_depot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM alert_subscriptions
                  WHERE status = 'active' AND kind = 'emu' AND emu_id = NEW.id) THEN
    RETURN NULL;
  END IF;
  INSERT INTO alert_outbox (event_type, data)
  VALUES ('emu.movedDepot', jsonb_build_object(
    'emuId', NEW.id, 'emuCode', NEW.code, 'from', OLD.depot, 'to', NEW.depot));
  PERFORM pg_notify('emutrack_webhooks', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER alert_emu_depot_changed AFTER UPDATE OF depot ON emus
  FOR EACH ROW WHEN (OLD.depot IS DISTINCT FROM NEW.depot)
  EXECUTE FUNCTION alert_emu_moved_depot();

-- The server's VAPID key pair (Web Push, RFC 8292), made once by the first process that needs
-- it. The private key is kept encrypted (a JWE under OAUTH_KEY_SECRET, like the OAuth signing
-- keys); the public key is what browsers subscribe with.
CREATE TABLE alert_vapid_keys (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  public_key text NOT NULL,
  private_jwe text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE alert_vapid_keys;
DROP TRIGGER alert_emu_depot_changed ON emus;
DROP FUNCTION alert_emu_moved_depot();
DROP TABLE alert_outbox;
DROP TABLE alert_dispatch_state;
DROP TABLE alert_deliveries;
DROP TABLE alert_subscriptions;
