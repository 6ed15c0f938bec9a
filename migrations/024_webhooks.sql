-- Up Migration

-- Webhooks (src/webhooks): endpoints users (or OAuth apps acting for them) register, and the
-- deliveries made to them. A delivery row is written in the same transaction as the dispatcher
-- moves its place in the change feed past the changes it stands for (or claims the outbox row it
-- stands for), so every event becomes exactly one delivery row; the delivery itself is
-- at-least-once (a receiver may see a message id again after a lost answer, never a new id for
-- the same event).
CREATE TABLE webhook_endpoints (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- What the API shows: whe_ + random, not the serial.
  public_id text NOT NULL UNIQUE,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The OAuth client that registered it (null: the user, with a session or a key).
  oauth_client_id text,
  url text NOT NULL,
  events text[] NOT NULL,
  -- records.changed only for these trains / EMUs (canonical codes; empty = none asked).
  trains text[] NOT NULL DEFAULT '{}',
  emu_ids integer[] NOT NULL DEFAULT '{}',
  -- whsec_ + base64 of 24 random bytes; the previous one signs too until it expires (rotation).
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Since when every attempt has failed (null after a success); past a day it is disabled.
  failing_since timestamptz,
  last_error text,
  last_success_at timestamptz,
  disabled_at timestamptz,
  disabled_reason text
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id);

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The webhook-id header: msg_ + random; the same on every attempt.
  message_id text NOT NULL UNIQUE,
  endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_type text NOT NULL,
  -- The exact body sent (signed as is).
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- When it was handed to the queue (null: the dispatcher's sweep hands it over again).
  enqueued_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_attempt_at timestamptz,
  last_status integer,
  last_error text,
  delivered_at timestamptz,
  -- Given up: attempts used up, or the endpoint disabled or deleted.
  failed_at timestamptz
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id DESC);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (id)
  WHERE delivered_at IS NULL AND failed_at IS NULL;

-- Where the dispatcher is in the change feed (record_changes, migration 023).
CREATE TABLE webhook_dispatch_state (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  position bigint NOT NULL,
  record_id bigint NOT NULL
);
-- Deliveries start with the changes made after webhooks exist, not with history.
INSERT INTO webhook_dispatch_state (position, record_id)
SELECT k.position,
       coalesce((SELECT max(record_id) FROM record_changes c WHERE c.position = k.position), 0)
  FROM record_change_clock k;

-- Events that do not come from the change feed (export.ready): written by a trigger in the
-- writer's transaction, claimed and deleted by the dispatcher in the transaction that turns
-- them into deliveries (so none is lost or turned twice, whatever order writers commit in).
CREATE TABLE webhook_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Only while some endpoint wants it: with no webhooks, exports write nothing more.
CREATE FUNCTION webhook_export_ready() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints
                  WHERE disabled_at IS NULL AND 'export.ready' = ANY (events)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_outbox (event_type, data)
  VALUES ('export.ready', jsonb_build_object(
    'serviceDay', NEW.service_day,
    'date', to_char(date '1970-01-01' + NEW.service_day, 'YYYYMMDD'),
    'rows', NEW.row_count,
    'bytes', octet_length(NEW.content),
    'sha256', NEW.sha256));
  PERFORM pg_notify('emutrack_webhooks', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER webhook_export_added AFTER INSERT ON daily_exports
  FOR EACH ROW EXECUTE FUNCTION webhook_export_ready();
-- A render that gives the same bytes is no new export.
CREATE TRIGGER webhook_export_changed AFTER UPDATE ON daily_exports
  FOR EACH ROW WHEN (OLD.sha256 IS DISTINCT FROM NEW.sha256)
  EXECUTE FUNCTION webhook_export_ready();

-- Down Migration
DROP TRIGGER webhook_export_changed ON daily_exports;
DROP TRIGGER webhook_export_added ON daily_exports;
DROP FUNCTION webhook_export_ready();
DROP TABLE webhook_outbox;
DROP TABLE webhook_dispatch_state;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
