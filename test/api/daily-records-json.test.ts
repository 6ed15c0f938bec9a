import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/shared/db/db.js';
import {
  dailyRecordsDataJson,
  recordItems,
  withMappingMembers,
} from '../../src/http/api/daily-records-json.js';
import { dataEnvelopeJson } from '../../src/http/api/v2-edge.js';
import type { DailyRecordRow } from '../../src/domain/records/read-daily-records.js';
import { EmuCodeCache } from '../../src/domain/emus/emu-code-cache.js';
import { TimetableSummaryCache } from '../../src/domain/timetables/timetable-summary-cache.js';
import { dataEnvelope } from '../../src/http/api/envelope.js';
import { dailyRecordsDataSchema } from '../../src/http/api/schemas.js';
import { createFastSerializerCompiler } from '../../src/http/api/serializer.js';
import { splitTrainCode } from '../../src/domain/trains/train-code.js';

const schema = dataEnvelope(dailyRecordsDataSchema);

/** Every EMU exists as CR400AF-"<id>\ and every timetable runs 北京南 -> "<id>" (escaping). */
const fakeDb = {
  async query(sql: string, params?: unknown[]) {
    const ids = params![0] as number[];
    const rows = sql.includes('FROM emus')
      ? ids.map((id) => ({ id, code: `CR400AF-"${id}\\` }))
      : ids.map((id) => ({
          id,
          start_station: '北京南',
          end_station: `"${id}"`,
          start_offset: id * 60,
          end_offset: 86_400 + id,
        }));
    return { rows, rowCount: rows.length };
  },
} as unknown as Db;

const summaryOf = (id: number) => ({
  startStation: '北京南',
  endStation: `"${id}"`,
  startOffset: id * 60,
  endOffset: 86_400 + id,
});

describe('dailyRecordsDataJson in the envelope (the hot path writer)', () => {
  it('writes what the schema-driven serializer writes, for random pages', async () => {
    const generic = createFastSerializerCompiler()({
      schema,
      method: 'GET',
      url: '/api/v2/records/daily',
      httpStatus: '200',
    }) as (data: unknown) => string;
    const cache = new EmuCodeCache(fakeDb);
    const timetables = new TimetableSummaryCache(fakeDb);
    let seed = 42;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const trainCodes = ['G1', 'D2001', 'C5503', '1461', 'S1', 'G99999'];
    for (let round = 0; round < 50; round++) {
      const rows: Omit<DailyRecordRow, never>[] = Array.from({ length: rand(30) }, (_, i) => ({
        id: 100_000 - i * (1 + rand(5)),
        emuId: 1 + rand(20),
        status: rand(32),
        timetableId: rand(3) === 0 ? rand(1000) : null,
        trainCode: trainCodes[rand(trainCodes.length)]!,
      }));
      await cache.load(rows.map((r) => r.emuId));
      const timetableIds = rows.flatMap((r) => (r.timetableId === null ? [] : [r.timetableId]));
      await timetables.load(timetableIds);
      const meta = rand(2)
        ? { remain: rand(100), cost: rand(10) }
        : { remain: 0, cost: 0, retryAfter: 7 };
      const body = {
        serviceDay: 20675,
        cursor: ['', '20675:123', 'x"\\\u2028y'][rand(3)]!,
        limit: 1 + rand(200),
        nextCursor: rand(2) ? '' : '20675:99',
      };
      // As the page query writes them (see dailyRecordsPage).
      const items = await withMappingMembers(
        recordItems(
          20675,
          rows.map((r) => `${r.id},${r.emuId},${r.status},${r.timetableId ?? ''},${r.trainCode}`),
        ),
        { emuCodes: cache, timetables },
      );
      const json = dataEnvelopeJson(
        meta,
        dailyRecordsDataJson({
          ...body,
          items,
          from: 0,
          itemsJson: items.map((item) => item.json).join(','),
        }).join(''),
      );
      const expected = {
        ok: true,
        meta,
        data: {
          serviceDay: body.serviceDay,
          cursor: body.cursor,
          limit: body.limit,
          nextCursor: body.nextCursor,
          items: rows.map((r) => ({
            id: r.id,
            serviceDay: body.serviceDay,
            ...(r.timetableId === null ? {} : { timetableId: r.timetableId }),
            emuId: r.emuId,
            trainCode: splitTrainCode(r.trainCode),
            status: r.status,
          })),
          emuCodeMappings: Object.fromEntries(
            rows.map((r) => [String(r.emuId), cache.code(r.emuId)!]),
          ),
          ...(timetableIds.length === 0
            ? {}
            : {
                timetableMappings: Object.fromEntries(
                  timetableIds.map((id) => [String(id), summaryOf(id)]),
                ),
              }),
        },
        error: '',
      };
      const parsed = JSON.parse(json);
      expect(schema.parse(parsed)).toEqual(parsed);
      expect(parsed).toEqual(expected);
      expect(parsed).toEqual(JSON.parse(generic(expected)));
    }
  });
});
