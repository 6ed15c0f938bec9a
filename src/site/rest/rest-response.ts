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

export type RestLinks = Record<string, RestLink[]>;
