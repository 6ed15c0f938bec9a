import { describe, expect, it } from 'vitest';
import { parsePage, V2FormatError } from '../../src/domain/sources/v2-page.js';

function page(): Record<string, unknown> {
  return {
    serviceDay: 20_675,
    cursor: '',
    limit: 2,
    nextCursor: '20675:7',
    items: [
      {
        id: 9,
        serviceDay: 20_675,
        timetableId: 3,
        emuId: 1,
        trainCode: { prefix: 'G', number: 1 },
        status: 1,
      },
      { id: 8, serviceDay: 20_675, emuId: 2, status: 0 },
    ],
    emuCodeMappings: { '1': 'CR400AF-2001', '2': 'CRH380A-2541' },
    timetableMappings: { '3': { startStation: 'A', endStation: 'B', startOffset: 25_200 } },
  };
}

const envelope = (data: unknown) => ({ ok: true, data });

/** Values a field of a kind must refuse (each mutation is applied to a fresh page). */
const notInt = ['1', 1.5, null, true, [], {}, Number.MAX_SAFE_INTEGER + 2];
const mutations: [string, (p: Record<string, unknown>) => void][] = [];
const item = (p: Record<string, unknown>, i = 0) => (p.items as Record<string, unknown>[])[i]!;
for (const bad of notInt) {
  for (const field of ['id', 'serviceDay', 'emuId', 'status', 'timetableId'])
    mutations.push([`items.0.${field} = ${JSON.stringify(bad)}`, (p) => (item(p)[field] = bad)]);
  mutations.push([`serviceDay = ${JSON.stringify(bad)}`, (p) => (p.serviceDay = bad)]);
  mutations.push([`limit = ${JSON.stringify(bad)}`, (p) => (p.limit = bad)]);
  mutations.push([
    `trainCode.number = ${JSON.stringify(bad)}`,
    (p) => ((item(p).trainCode as Record<string, unknown>).number = bad),
  ]);
  mutations.push([
    `timetableMappings.3.startOffset = ${JSON.stringify(bad)}`,
    (p) =>
      ((
        (p.timetableMappings as Record<string, unknown>)['3'] as Record<string, unknown>
      ).startOffset = bad),
  ]);
}
mutations.push(
  ['items.0.id = 0', (p) => (item(p).id = 0)],
  ['items.0.emuId = -1', (p) => (item(p).emuId = -1)],
  ['limit = 0', (p) => (p.limit = 0)],
  ['nextCursor of 65 characters', (p) => (p.nextCursor = 'x'.repeat(65))],
  ['nextCursor = null', (p) => (p.nextCursor = null)],
  ['cursor missing', (p) => delete p.cursor],
  ['items not an array', (p) => (p.items = {})],
  ['an item that is null', (p) => ((p.items as unknown[])[1] = null)],
  [
    'trainCode.prefix of 9 letters',
    (p) => (item(p).trainCode = { prefix: 'GGGGGGGGG', number: 1 }),
  ],
  ['trainCode null', (p) => (item(p).trainCode = null)],
  ['an emu code of 65 characters', (p) => (p.emuCodeMappings = { '1': 'C'.repeat(65) })],
  ['an emu code that is a number', (p) => (p.emuCodeMappings = { '1': 5 })],
  ['emuCodeMappings an array', (p) => (p.emuCodeMappings = ['CR400AF-2001'])],
  ['a timetable summary that is a string', (p) => (p.timetableMappings = { '3': 'x' })],
  ['a station that is a number', (p) => (p.timetableMappings = { '3': { startStation: 1 } })],
);

describe('a page of /records/daily', () => {
  it('is taken as it is when it fits the schema, optional fields absent or not', () => {
    const p = page();
    expect(parsePage(envelope(p) as never)).toEqual(p);
    delete p.emuCodeMappings;
    delete p.timetableMappings;
    expect(parsePage(envelope(p) as never)).toEqual(p);
  });

  it.each(mutations)('is refused, naming the field, when %s', (_, mutate) => {
    const p = page();
    mutate(p);
    let err: unknown;
    try {
      parsePage(envelope(p) as never);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(V2FormatError);
    expect((err as V2FormatError).reason).toMatch(/^unexpected page: data(\.\w+)*: .+/);
  });
});
