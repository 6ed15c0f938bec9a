/** What a route callback answers: data, a status and headers (WP_REST_Response). */
export class RestResponse {
  constructor(
    public data: unknown,
    public status = 200,
    public headers: Record<string, string> = {},
  ) {}
}

/** One `_links` entry; `embeddable` ones are fetched into `_embedded` when `_embed` asks. */
export interface RestLink {
  href: string;
  embeddable?: boolean;
  [attribute: string]: unknown;
}

/** The headers WordPress's controllers set as integers (`(int) $total_posts`). */
const INTEGER_HEADERS = new Set(['X-WP-Total', 'X-WP-TotalPages']);

/**
 * A response as `_envelope` and `/batch/v1` carry it in a body: its data, status and headers as
 * the controller set them, so the totals are numbers there (on the wire every header is text).
 */
export function envelopeOf(
  response: RestResponse,
  headers: Record<string, string> = response.headers,
): { body: unknown; status: number; headers: Record<string, string | number> } {
  const out: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = INTEGER_HEADERS.has(name) && /^\d+$/.test(value) ? Number(value) : value;
  }
  return { body: response.data, status: response.status, headers: out };
}
