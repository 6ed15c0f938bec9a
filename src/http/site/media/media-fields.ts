import { ksesPost, ksesTitle } from '../../../domain/content/kses.js';
import { parseSiteDate, InvalidSiteDateError } from '../../../domain/content/site-dates.js';
import type { MediaFields } from '../../../domain/media/media-library.js';
import { MediaError } from '../../../domain/media/media-error.js';
import { rawText } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';

function integer(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RestError('rest_invalid_param', `Invalid parameter(s): ${name}`, {
      status: 400,
      params: { [name]: `${name} is not of type integer.` },
    });
  }
  return n;
}

/**
 * The writable media fields of a request (validated params, or multipart fields as strings).
 * `kses`: the caller lacks unfiltered_html, so title, caption and description are filtered as
 * wp_insert_attachment's sanitize_post filters them (title_save_pre, excerpt/content_save_pre).
 */
export function mediaFieldsOf(
  params: Record<string, unknown>,
  options: { kses?: boolean } = {},
): MediaFields {
  const kses = <T extends string | undefined>(text: T, filter: (s: string) => string): T =>
    (options.kses && text !== undefined ? filter(text) : text) as T;
  let dateGmt: Date | undefined;
  try {
    if (typeof params.date_gmt === 'string')
      dateGmt = parseSiteDate(params.date_gmt, 'date_gmt', true);
    else if (typeof params.date === 'string') dateGmt = parseSiteDate(params.date, 'date', false);
  } catch (err) {
    if (err instanceof InvalidSiteDateError) {
      throw new RestError('rest_invalid_param', `Invalid parameter(s): ${err.message}`, 400);
    }
    throw err;
  }
  const status = params.status === undefined ? undefined : String(params.status);
  if (
    status !== undefined &&
    !['inherit', 'private', 'publish', 'draft', 'pending', 'future'].includes(status)
  ) {
    throw new RestError('rest_invalid_param', 'Invalid parameter(s): status', {
      status: 400,
      params: { status: 'status is not one of publish, future, draft, pending, private, inherit.' },
    });
  }
  return {
    title: kses(rawText(params.title), ksesTitle),
    caption: kses(rawText(params.caption), ksesPost),
    description: kses(rawText(params.description), ksesPost),
    altText: params.alt_text === undefined ? undefined : String(params.alt_text),
    post: integer('post', params.post),
    slug: params.slug === undefined ? undefined : String(params.slug),
    status: status === 'publish' ? 'inherit' : status,
    author: integer('author', params.author),
    dateGmt,
  };
}

/** A domain refusal as WordPress's REST error (same code, same status). */
export function restErrorOf(err: unknown): unknown {
  if (err instanceof MediaError) return new RestError(err.code, err.message, err.status);
  return err;
}
