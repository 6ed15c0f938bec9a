-- Up Migration

-- Media and templates of the documentation site (src/media, src/templates) live in site_posts
-- (migration 009) as WordPress keeps them: media as type 'attachment' (extra: mime_type,
-- original_file, alt_text, media_details), templates as 'wp_template' (extra: theme, origin,
-- area, ...). These indexes serve the lists the issue adds.

-- GET /wp/v2/media?media_type=image&mime_type=...: attachments by mime type, newest first.
CREATE INDEX site_posts_attachment_mime ON site_posts ((extra ->> 'mime_type'), date_gmt DESC, id DESC)
  WHERE type = 'attachment';

-- Templates of a theme by slug (lookup, item routes `theme//slug`).
CREATE INDEX site_posts_template_theme ON site_posts ((extra ->> 'theme'), slug)
  WHERE type IN ('wp_template', 'wp_template_part');

-- Down Migration
DROP INDEX site_posts_template_theme;
DROP INDEX site_posts_attachment_mime;
