import { RAILRE_FIELD_NAMES, railreLine } from '../ingest/formats/railre-row.js';
import type { ObservationValue } from '../ingest/ingest-values.js';
import { trainsInForceBetween } from '../timetables/timetable-lookup.js';
import { SourceRequestError } from './paced-http.js';
import { RAILRE_TRAIN } from './source-config.js';
import { answerJson, type KindRequest, type SourceKindPuller } from './source-kind.js';

/** rail.re answers at most this many rows to one request. */
export const RAILRE_MAX_ROWS = 30;
/**
 * Trains per request of the comma form (GET /train/A,B,C), which answers each train's latest
 * rows: few enough that a coupled run's two units each still fit in the 30 rows.
 */
export const RAILRE_BATCH = 10;

/**
 * rail.re's JSON API: `GET {base}/train/{G|D|C}{1-4 digits}` (or several numbers joined by
 * commas) answers an array of at most 30 {"date": "YYYY-MM-DD", "emu_no": "CRH380AL2541",
 * "train_no": "G1/G2"}, newest first. Each row is read as a rail.re file's row is (railreLine),
 * credited to the source: keyed by its date, train and unit, so a repeated pull adds nothing.
 */
export function railreKind(batchSize = RAILRE_BATCH): SourceKindPuller {
  return {
    fieldNames: RAILRE_FIELD_NAMES,

    async plan({ db, source, from, to, trains }) {
      const wanted = trains ?? source.trains ?? (await trainsInForceBetween(db, from, to));
      // Timetables hold numbers rail.re has no page for (S, K, 5 digits): not asked.
      const asked = [...new Set(wanted)].filter((t) => RAILRE_TRAIN.test(t));
      const requests: KindRequest[] = [];
      for (let i = 0; i < asked.length; i += batchSize) {
        const path = `train/${asked.slice(i, i + batchSize).join(',')}`;
        requests.push({ url: `${source.baseUrl}/${path}`, file: `source:${source.name}/${path}` });
      }
      return { requests, asked: asked.length };
    },

    read(source, request, res) {
      if (res.status !== 200) {
        const what = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : '';
        throw new SourceRequestError(request.url, `HTTP ${res.status}${what}`);
      }
      const rows = answerJson(request, res);
      if (!Array.isArray(rows))
        throw new SourceRequestError(
          request.url,
          `body: expected an array of rows, got ${rows === null ? 'null' : typeof rows}`,
        );
      if (rows.length > RAILRE_MAX_ROWS)
        throw new SourceRequestError(
          request.url,
          `body: ${rows.length} rows, more than rail.re's ${RAILRE_MAX_ROWS}`,
        );
      return rows.map((row: unknown, i): ObservationValue => {
        const raw = JSON.stringify(row) ?? String(row);
        const line = railreLine(i + 1, raw, row, source.name);
        return 'error' in line
          ? {
              line: line.line,
              raw,
              value: null,
              problem: { field: line.field ?? null, reason: line.error },
            }
          : { line: line.line, raw, value: line.value };
      });
    },
  };
}
