import { dailyExportFormat } from './daily-export-format.js';
import { ndjsonFormat } from './ndjson-format.js';
import { observationCsvFormat } from './observation-csv-format.js';
import { UnreadableFileError } from '../read-observation-lines.js';
import { readFileHead, type FileHead, type ObservationFormat } from './observation-format.js';
import { railreCsvFormat } from './railre-csv-format.js';
import { railreJsonFormat } from './railre-json-format.js';

/**
 * Every input format of `emutrack ingest`, in the order detection asks them: the first whose
 * detect() takes the file's head reads it. The CSV formats with a fixed header come before the
 * observation CSV, which takes any header naming one of its fields; NDJSON comes last, as it
 * also takes a file whose first line is broken (but not one whose first line is a CSV header
 * or opens a JSON array, which the formats before it have judged).
 */
export const OBSERVATION_FORMATS: readonly ObservationFormat[] = [
  railreJsonFormat,
  dailyExportFormat,
  railreCsvFormat,
  observationCsvFormat,
  ndjsonFormat,
];

/** The format of a file from its head, or why none is (one line: the file's name comes first). */
export function formatOf(head: FileHead): ObservationFormat | string {
  const format = OBSERVATION_FORMATS.find((f) => f.detect(head));
  if (format) return format;
  const start = head.firstLine.length > 60 ? `${head.firstLine.slice(0, 60)}...` : head.firstLine;
  return (
    `unknown format (first line ${JSON.stringify(start)}): expected NDJSON observations, ` +
    'a JSON array of rail.re rows (date, emu_no, train_no), or a CSV whose header is ' +
    'observedAt,trainCode,emuCode,source[,...] (observations), ' +
    'trainCode,emuCode,startStation,endStation,startTime,endTime (daily export) ' +
    'or date,emu_no,train_no (rail.re)'
  );
}

/** The format of a file, from its first bytes (never its name); UnreadableFileError when none. */
export async function detectObservationFormat(
  file: string,
  name: string,
): Promise<ObservationFormat> {
  const format = formatOf(await readFileHead(file));
  if (typeof format === 'string') throw new UnreadableFileError(name, format);
  return format;
}
