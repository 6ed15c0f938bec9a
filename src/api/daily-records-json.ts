import { splitTrainCode } from '../trains/train-code.js';
import type { DailyRecordRow } from './daily-records-page.js';
import type { EmuCodeCache } from './emu-code-cache.js';
import type { ApiMeta } from './envelope.js';

/**
 * The success body of GetDailyRecords, written as JSON text directly: the API's hot path. The
 * generic serializer (fast-json-stringify over the zod schema) needs objects for 200 items and an
 * integer-keyed emuCodeMappings object, then writes a string of ~2,000 pieces; this writer joins
 * cached fragments (a train code's `trainCode` member, an EMU's mapping member) into one flat
 * string, at about a third of the cost. Its output is the schema's (dailyRecordsDataSchema): the
 * tests parse it with the schema and compare it with the generic serializer's.
 */
export interface DailyRecordsPageBody {
  serviceDay: number;
  cursor: string;
  limit: number;
  nextCursor: string;
  rows: readonly DailyRecordRow[];
}

// `,"trainCode":{...}` per train code ("" when a stored code does not parse); codes repeat daily.
const trainCodeJson = new Map<string, string>();

function trainCodeMember(code: string): string {
  let json = trainCodeJson.get(code);
  if (json === undefined) {
    try {
      const { prefix, number } = splitTrainCode(code);
      json = `,"trainCode":{"prefix":${JSON.stringify(prefix)},"number":${number}}`;
    } catch {
      json = '';
    }
    if (trainCodeJson.size >= 100_000) trainCodeJson.clear();
    trainCodeJson.set(code, json);
  }
  return json;
}

function metaJson(meta: ApiMeta): string {
  return meta.retryAfter === undefined
    ? `{"remain":${meta.remain},"cost":${meta.cost}}`
    : `{"remain":${meta.remain},"cost":${meta.cost},"retryAfter":${meta.retryAfter}}`;
}

/** The envelope `{meta, data}` as JSON; the page's EMUs must be loaded in `emuCodes`. */
export function dailyRecordsEnvelopeJson(
  meta: ApiMeta,
  body: DailyRecordsPageBody,
  emuCodes: EmuCodeCache,
): string {
  const { serviceDay, rows } = body;
  const dayMember = `,"serviceDay":${serviceDay}`;
  const items = new Array<string>(rows.length);
  const seen = new Set<number>();
  const mappings: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const timetable = row.timetableId === null ? '' : `,"timetableId":${row.timetableId}`;
    items[i] =
      `{"id":${row.id}${dayMember}${timetable},"emuId":${row.emuId}` +
      `${trainCodeMember(row.trainCode)},"status":${row.status}}`;
    if (!seen.has(row.emuId)) {
      seen.add(row.emuId);
      const member = emuCodes.json(row.emuId);
      if (member !== undefined) mappings.push(member);
    }
  }
  return (
    `{"meta":${metaJson(meta)},"data":{"serviceDay":${serviceDay},` +
    `"cursor":${JSON.stringify(body.cursor)},"limit":${body.limit},` +
    `"nextCursor":${JSON.stringify(body.nextCursor)},"items":[${items.join(',')}],` +
    `"emuCodeMappings":{${mappings.join(',')}}}}`
  );
}
