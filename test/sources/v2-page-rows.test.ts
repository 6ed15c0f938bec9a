import { describe, expect, it } from 'vitest';
import { STRICT_EMU_FORMS, type EmuFormPolicy } from '../../src/domain/emus/emu-forms.js';
import { ChunkBuilder, type ParsedChunk } from '../../src/domain/ingest/observation-copy-rows.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import type { Source } from '../../src/domain/sources/source-store.js';
import type { V2Page, V2Record } from '../../src/domain/sources/v2-page.js';
import { V2PageRows } from '../../src/domain/sources/v2-page-rows.js';
import { sightingDay } from '../../src/domain/sources/v2-record-observation.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';

const DAY = serviceDayFromYmd('20260810');

function sourceNamed(name: string): Source {
  return {
    ...checkSourceSettings({ name: 'upstream', kind: 'v2', url: 'http://127.0.0.1:1' }),
    name,
    id: 1,
    lastSuccessAt: null,
    lastError: null,
    lastErrorAt: null,
    linesTaken: 0,
    linesRefused: 0,
    requests: 0,
    refusals: 0,
    errors: 0,
    createdAt: new Date(0),
  };
}

type Item = Omit<V2Record, 'id' | 'serviceDay' | 'status'> &
  Partial<Pick<V2Record, 'id' | 'serviceDay' | 'status'>>;

/** A page of `items` (ids counted from 1,000 unless given), with the mappings they name. */
function pageOf(
  items: Item[],
  emus: Record<string, string>,
  starts: Record<string, number>,
  day = DAY,
): V2Page {
  return {
    serviceDay: day,
    cursor: '',
    limit: 200,
    nextCursor: '',
    items: items.map((x, i) => ({ id: 1000 + i, serviceDay: day, status: 1, ...x })),
    emuCodeMappings: emus,
    timetableMappings: Object.fromEntries(
      Object.entries(starts).map(([id, startOffset]) => [id, { startOffset }]),
    ),
  };
}

/** Every part of a chunk that reaches the database, the rows as text. */
function stored(chunk: ParsedChunk) {
  return {
    read: chunk.read,
    valid: chunk.valid,
    rows: new TextDecoder().decode(chunk.rows.bytes),
    days: chunk.rows.days,
    pending: chunk.rows.pending,
    rejects: chunk.rejects,
  };
}

/** The chunk the lean path makes of the pages, and the one the general path makes. */
function bothWays(
  pages: V2Page[],
  o: { source?: Source; emuIds?: Map<string, number>; policy?: EmuFormPolicy } = {},
) {
  const source = o.source ?? sourceNamed('upstream');
  const ways = [true, false].map((lean) => {
    const rows = new V2PageRows(source, o.policy ?? STRICT_EMU_FORMS, lean);
    const chunk = new ChunkBuilder(7, 'source:upstream/20260810', o.emuIds ?? new Map(), 64);
    for (const page of pages) rows.addPage(chunk, sightingDay(page.serviceDay), page);
    return stored(chunk.finish());
  });
  return { lean: ways[0]!, general: ways[1]! };
}

const G = (number: number, prefix = 'G') => ({ prefix, number });

describe('a v2 page as COPY rows: the lean path stores what the general one does', () => {
  it('takes ordinary records, each status bit, units known and not, and a repeated id', () => {
    const emus = { 1: 'CR400AF-2001', 2: 'CR400AF-2002', 3: 'CRH380A-2636' };
    const items: Item[] = [
      { emuId: 1, trainCode: G(1001), timetableId: 11, status: 0 },
      { emuId: 2, trainCode: G(1002), timetableId: 12, status: 0x04 },
      { emuId: 3, trainCode: G(5801, 'DJ'), timetableId: 13, status: 0x06 | 0x08 },
      { emuId: 1, trainCode: G(1461, ''), status: 0x02 | 0x10 },
      { emuId: 2, trainCode: G(299, 'X'), timetableId: 99, status: 0x1e },
      { id: 1000, emuId: 1, trainCode: G(1001), timetableId: 11 },
      { id: 2 ** 31 + 5, emuId: 3, trainCode: G(7001, 'D'), timetableId: 14 },
    ];
    const starts = { 11: 21_600, 12: 0, 13: 2 * 86_400 - 1, 14: 86_400 + 60 };
    const { lean, general } = bothWays([pageOf(items, emus, starts)], {
      emuIds: new Map([['CR400AF-2002', 42]]),
    });
    expect(lean).toEqual(general);
    expect(lean).toMatchObject({ read: 7, valid: 7, rejects: [] });
    // The repeated id is one row; the unit the cache knows is written, the others left pending.
    expect(lean.rows.trim().split('\n')).toHaveLength(6);
    expect(lean.pending.units.sort()).toEqual(['CR400AF-2001', 'CRH380A-2636']);
  });

  it('refuses, or hands to the validator, whatever is not plainly one train on one unit', () => {
    const emus = {
      1: 'CR400AF-2001',
      2: ' CR400AF-2002 ',
      3: 'cr400af-2003',
      4: 'not a unit',
      5: 'ZZ99-0001',
      6: 'CR400AF-Z-0216-02-03F',
    };
    const items: Item[] = [
      { emuId: 9, trainCode: G(1001) },
      { emuId: 1 },
      { emuId: 1, serviceDay: DAY + 1, trainCode: G(1002) },
      { emuId: 1, trainCode: G(1003, 'g') },
      { emuId: 1, trainCode: G(1004, ' G') },
      { emuId: 1, trainCode: G(1005, 'Q') },
      { emuId: 1, trainCode: G(300, 'X') },
      { emuId: 1, trainCode: G(0) },
      { emuId: 1, trainCode: G(100_000) },
      { emuId: 2, trainCode: G(1006) },
      { emuId: 3, trainCode: G(1007) },
      { emuId: 4, trainCode: G(1008) },
      { emuId: 5, trainCode: G(1009) },
      { emuId: 6, trainCode: G(1010) },
      { emuId: 1, trainCode: G(1011), timetableId: 77 },
      { emuId: 1, trainCode: G(1012), timetableId: 78 },
    ];
    const { lean, general } = bothWays([pageOf(items, emus, { 78: -60 })]);
    expect(lean).toEqual(general);
    // g1003 and " G1004" are normalised by the validator and taken, as are the units' forms
    // it reads ("cr400af-2003", a travel code's seat); Q, X300, G0, G100000 and two codes are not.
    expect(lean.rejects.map((r) => r.field)).toEqual([
      'emuCode',
      'trainCode',
      'serviceDay',
      'trainCode',
      'trainCode',
      'trainCode',
      'trainCode',
      'emuCode',
      'emuCode',
    ]);
    expect(lean.valid).toBe(7);
    expect(lean.rejects[0]).toMatchObject({
      line: 1000,
      reason: 'emuCode: no emuCodeMappings entry for emuId 9',
      raw: JSON.stringify({ id: 1000, serviceDay: DAY, status: 1, emuId: 9, trainCode: G(1001) }),
    });
  });

  it('takes the general path for a whole page its checks do not cover', () => {
    const emus = { 1: 'CR400AF-2001' };
    const items: Item[] = [{ emuId: 1, trainCode: G(1001) }];
    // A day whose midnight is before 2007: its times are refused by the validator.
    const old = bothWays([pageOf(items, emus, {}, serviceDayFromYmd('20000101'))]);
    expect(old.lean).toEqual(old.general);
    expect(old.lean.rejects[0]?.field).toBe('observedAt');
    // A source name the validator would trim.
    const spaced = bothWays([pageOf(items, emus, {})], { source: sourceNamed(' upstream') });
    expect(spaced.lean).toEqual(spaced.general);
    // An EMU code of no known family, accepted under a policy that allows them.
    const allowed = bothWays([pageOf([{ emuId: 1, trainCode: G(1001) }], { 1: 'ZZ99-0001' }, {})], {
      policy: { allowUnknownForms: true, fleetCodes: new Set() },
    });
    expect(allowed.lean).toEqual(allowed.general);
    expect(allowed.lean.rejects).toEqual([]);
  });

  it('makes the same rows over many pages of a day as the general path', () => {
    const pages: V2Page[] = [];
    for (let p = 0; p < 5; p++) {
      const emus: Record<string, string> = {};
      const starts: Record<string, number> = {};
      const items: Item[] = [];
      for (let i = 0; i < 200; i++) {
        const g = p * 200 + i;
        emus[g % 300] = `CR400AF-${2000 + (g % 300)}`;
        starts[g] = (g * 97) % 90_000;
        items.push({
          id: 1 + g,
          emuId: g % 300,
          trainCode: G(1 + (g % 9000), ['G', 'D', 'C'][g % 3]),
          timetableId: g,
          status: g % 32,
        });
      }
      pages.push(pageOf(items, emus, starts));
    }
    const { lean, general } = bothWays(pages, { emuIds: new Map([['CR400AF-2007', 3]]) });
    expect(lean).toEqual(general);
    expect(lean.valid).toBe(1000);
  });
});
