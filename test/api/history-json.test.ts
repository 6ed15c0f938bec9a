import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/shared/db/db.js';
import { EmuCodeCache } from '../../src/domain/emus/emu-code-cache.js';
import { emuHistoryDataJson, trainHistoryDataJson } from '../../src/http/api/history-json.js';
import { emuHistoryDataSchema, trainHistoryDataSchema } from '../../src/http/api/routes/history.js';
import { createFastSerializerCompiler } from '../../src/http/api/serializer.js';
import { TimetableSummaryCache } from '../../src/domain/timetables/timetable-summary-cache.js';
import type { HistoryRecord } from '../../src/domain/history/read-history.js';
import { trainCodeOf } from '../../src/http/api/train-codes.js';

/** Every EMU exists as CR400AF-"<id>\ and every timetable runs 北京南 -> "<id>" (escaping). */
const fakeDb = {
  async query(sql: string, params?: unknown[]) {
    const ids = params![0] as number[];
    const rows = sql.includes('FROM emus')
      ? ids.map((id) => ({ id, code: `CR400AF-"${id}\\ ü` }))
      : ids.map((id) => ({
          id,
          start_station: '北京南',
          end_station: `"${id}"\n`,
          start_offset: id * 60,
          end_offset: 86_400 + id,
        }));
    return { rows, rowCount: rows.length };
  },
} as unknown as Db;

const summaryOf = (id: number) => ({
  startStation: '北京南',
  endStation: `"${id}"\n`,
  startOffset: id * 60,
  endOffset: 86_400 + id,
});

const serializerOf = (schema: unknown) =>
  createFastSerializerCompiler()({
    schema,
    method: 'GET',
    url: '/api/v2/history',
    httpStatus: '200',
  }) as (data: unknown) => string;

// Parsable numbers, numbers splitTrainCode refuses (a leading zero, six digits, an unknown
// prefix) and a prefix-less one.
const trainCodes = ['G1', 'D2001', 'C5503', 'DJ8858', '1461', 'G012', 'G123456', 'Q99', 'S1'];

const record = fc.record({
  id: fc.integer({ min: 1, max: 2 ** 31 }),
  serviceDay: fc.integer({ min: 0, max: 40_000 }),
  emuId: fc.integer({ min: 1, max: 60 }),
  trainCode: fc.constantFrom(...trainCodes),
  status: fc.integer({ min: 0, max: 31 }),
  timetableId: fc.option(fc.integer({ min: 1, max: 500 }), { nil: null }),
  // As Postgres's array_to_json writes a record's sources (the same escapes as JSON.stringify).
  sourcesJson: fc
    .array(fc.oneof(fc.constantFrom('12306', 'report', 'peer'), fc.string()), { maxLength: 3 })
    .map((a) => JSON.stringify(a)),
});

const page = fc.record({
  records: fc.array(record, { maxLength: 40 }),
  more: fc.boolean(),
  start: fc.option(fc.integer({ min: -2e9, max: 2e9 }), { nil: undefined }),
  end: fc.option(fc.integer({ min: -2e9, max: 2e9 }), { nil: undefined }),
  limit: fc.integer({ min: 1, max: 200 }),
  cursor: fc.option(fc.constantFrom('20675:123', 'x"\\\u2028y'), { nil: undefined }),
});

type Page = {
  records: HistoryRecord[];
  more: boolean;
  start: number | undefined;
  end: number | undefined;
  limit: number;
  cursor: string | undefined;
};

function queryOf(p: Page) {
  return {
    limit: p.limit,
    ...(p.start !== undefined ? { start: p.start } : {}),
    ...(p.end !== undefined ? { end: p.end } : {}),
    ...(p.cursor !== undefined ? { cursor: { text: p.cursor } } : {}),
  };
}

/** The data as the route built it before it wrote JSON itself: objects for the serializer. */
function referenceData(p: Page, emus: EmuCodeCache, alwaysEmuIds: number[]) {
  const last = p.records[p.records.length - 1];
  const emuIds = [...new Set([...alwaysEmuIds, ...p.records.map((r) => r.emuId)])];
  const timetableIds = [
    ...new Set(p.records.flatMap((r) => (r.timetableId === null ? [] : [r.timetableId]))),
  ];
  return {
    ...(p.start !== undefined ? { start: p.start } : {}),
    ...(p.end !== undefined ? { end: p.end } : {}),
    cursor: p.cursor ?? '',
    limit: p.limit,
    nextCursor: p.more && last ? `${last.serviceDay}:${last.id}` : '',
    emuCodeMappings: Object.fromEntries(emuIds.map((id) => [id, emus.code(id)!])),
    ...(timetableIds.length > 0
      ? { timetableMappings: Object.fromEntries(timetableIds.map((id) => [id, summaryOf(id)])) }
      : {}),
  };
}

describe('history pages written as JSON directly', () => {
  it('write the bytes the schema-driven serializer writes: train history, random pages', async () => {
    const serialize = serializerOf(trainHistoryDataSchema);
    const caches = {
      emuCodes: new EmuCodeCache(fakeDb),
      timetables: new TimetableSummaryCache(fakeDb),
    };
    await fc.assert(
      fc.asyncProperty(page, fc.constantFrom(...trainCodes), async (p, trainCode) => {
        const json = (await trainHistoryDataJson(caches, { trainCode, ...p }, queryOf(p))).join('');
        const requested = trainCodeOf(trainCode);
        const expected = serialize({
          ...(requested ? { trainCode: requested } : {}),
          ...referenceData(p, caches.emuCodes, []),
          items: p.records.map((r) => ({
            id: r.id,
            serviceDay: r.serviceDay,
            emuId: r.emuId,
            status: r.status,
            ...(r.timetableId !== null ? { timetableId: r.timetableId } : {}),
            sources: JSON.parse(r.sourcesJson) as string[],
          })),
        });
        expect(json).toBe(expected);
        expect(trainHistoryDataSchema.parse(JSON.parse(json))).toEqual(JSON.parse(json));
      }),
      { numRuns: 300, seed: 25 },
    );
  });

  it('write the bytes the schema-driven serializer writes: EMU history, random pages', async () => {
    const serialize = serializerOf(emuHistoryDataSchema);
    const caches = {
      emuCodes: new EmuCodeCache(fakeDb),
      timetables: new TimetableSummaryCache(fakeDb),
    };
    await fc.assert(
      fc.asyncProperty(page, fc.integer({ min: 1, max: 60 }), async (p, emuId) => {
        // An EMU's page holds only its records.
        const records = p.records.map((r) => ({ ...r, emuId }));
        const json = (
          await emuHistoryDataJson(caches, { emuId, records, more: p.more }, queryOf(p))
        ).join('');
        const expected = serialize({
          emuId,
          ...referenceData({ ...p, records }, caches.emuCodes, [emuId]),
          items: records.map((r) => {
            const code = trainCodeOf(r.trainCode);
            return {
              id: r.id,
              serviceDay: r.serviceDay,
              status: r.status,
              ...(r.timetableId !== null ? { timetableId: r.timetableId } : {}),
              ...(code ? { trainCode: code } : {}),
              sources: JSON.parse(r.sourcesJson) as string[],
            };
          }),
        });
        expect(json).toBe(expected);
        expect(emuHistoryDataSchema.parse(JSON.parse(json))).toEqual(JSON.parse(json));
      }),
      { numRuns: 300, seed: 25 },
    );
  });
});
