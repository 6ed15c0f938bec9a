-- Up Migration

-- Rendered circulation pictures (src/circulation-images), one row per distinct picture and
-- format. source_hash is a hash of what was drawn (renderer version, format and layout): a
-- request finds its document by it before rendering anything, so a picture is drawn once and
-- served from here afterwards. document_id is the SHA-256 of the bytes (the API's documentId and
-- the name in imageUrl). Rows may be deleted at any time: a missing picture is drawn again.
CREATE TABLE circulation_images (
  source_hash text PRIMARY KEY,
  document_id text NOT NULL,
  format text NOT NULL CHECK (format IN ('png', 'pdf')),
  content_type text NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX circulation_images_document ON circulation_images (document_id);

-- Down Migration
DROP TABLE circulation_images;
