import type { Db } from '../../shared/db/db.js';
import type { HttpGetResponse } from '../../shared/io/http-get.js';
import type { ObservationValue } from '../ingest/ingest-values.js';
import { SourceRequestError } from './paced-http.js';
import type { Source } from './source-store.js';

/** One request of a pull: a URL built from the source's base and fixed paths only. */
export interface KindRequest {
  url: string;
  /** How its refused rows are filed (ingest_rejects.file): `source:NAME/...`. */
  file: string;
}

export interface KindPlanContext {
  db: Db;
  source: Source;
  /** Service days of the pull (inclusive). */
  from: number;
  to: number;
  /** What the pull was told to ask for instead of the source's own list (`--trains`). */
  trains?: readonly string[];
}

/**
 * A kind of source asked by a list of independent requests (pull-requests.ts does the asking:
 * pace, 429s, ingestion, counters, errors). A new kind is one file implementing this:
 *
 * - `plan`: what to ask, in order;
 * - `read`: an answer's body as observations. Each value's `ref` is the kind's key (what makes
 *   two rows one sighting of this source: a repeated pull adds nothing); a row it cannot read
 *   is a value with a `problem`. An answer it cannot read at all throws a SourceRequestError
 *   (its URL and one line naming the status or the field).
 */
export interface SourceKindPuller {
  /** The upstream's names of observation fields (emuCode -> emu_no), for rejects. */
  fieldNames?: Readonly<Record<string, string>>;
  plan(ctx: KindPlanContext): Promise<{ requests: KindRequest[]; asked: number }>;
  read(source: Source, request: KindRequest, res: HttpGetResponse): ObservationValue[];
}

/** An answer's body as JSON; a SourceRequestError saying whether it was HTML or just not JSON. */
export function answerJson(request: KindRequest, res: HttpGetResponse): unknown {
  const type = res.headers['content-type'];
  try {
    return JSON.parse(res.body);
  } catch {
    const looksHtml = /^\s*</.test(res.body) || /html/i.test(type ?? '');
    throw new SourceRequestError(
      request.url,
      looksHtml
        ? `answer is HTML, not JSON (content-type ${type ?? 'none'})`
        : `answer is not JSON (content-type ${type ?? 'none'}, ${res.body.length} bytes)`,
    );
  }
}
