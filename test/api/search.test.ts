import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { searchDataSchema } from '../../src/http/api/routes/search.js';
import type { Db } from '../../src/shared/db/db.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { resolveEmuIds } from '../../src/domain/emus/emu-registry.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { bearer, makeKey, makeUser } from './helpers/accounts.js';
import { makeApp } from './helpers/api-harness.js';

const searchSchema = dataEnvelope(searchDataSchema);

const FLEET = `emu_code,model,bureau,train_depot,depot,alias
CR400AF-2001,CR400AF,上海局,上海动车段,杭州动车所,CR400AF2001|cr400af-2001
CR400AF-2011,CR400AF,上海局,上海动车段,杭州动车所,
CR400BF-A-5156,CR400BF-A,北京局,北京动车段,北京南动车所,
CRH380A-2001,CRH380A,广铁集团,广州动车段,广州南动车所,
`;

async function loadNetwork(db: Db): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-search-'));
  try {
    await writeFile(path.join(dir, 'fleet.csv'), FLEET);
    await importFleet(db, path.join(dir, 'fleet.csv'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const shanghai = { bureauName: '上海局' };
  await ingestTimetableLines(db, [
    timetable(
      'G7001',
      '20260701',
      [
        ['杭州东', undefined, '07:00'],
        ['上海虹桥', '08:00'],
      ],
      { ...shanghai, allCodes: ['G7001', 'G7004'] },
    ),
    timetable(
      'G7011',
      '20260701',
      [
        ['杭州南', undefined, '09:00'],
        ['上海虹桥', '10:00'],
      ],
      shanghai,
    ),
    timetable(
      'G70',
      '20260701',
      [
        ['杭州东', undefined, '11:00'],
        ['北京南', '17:00'],
      ],
      shanghai,
    ),
    timetable(
      'D3125',
      '20260701',
      [
        ['郑州东', undefined, '09:00'],
        ['西安北', '11:00'],
      ],
      { bureauName: '郑州局' },
    ),
  ]);
}

describe('GET /api/v2/search', () => {
  const t = useTestDatabase();
  let app: ApiApp;

  beforeAll(async () => {
    await loadNetwork(t.current.db);
    app = await makeApp(t.current.db, {
      env: { QUOTA_ANONYMOUS_CAPACITY: '10000', SEARCH_CHECK_EVERY_MS: '0' },
    });
  });
  afterAll(async () => app?.close());

  const search = async (q: string, extra = '') => {
    const res = await app.inject(`/api/v2/search?q=${encodeURIComponent(q)}${extra}`);
    expect(res.statusCode, res.body).toBe(200);
    return searchSchema.parse(res.json()).data;
  };
  const first = async (q: string) => (await search(q)).items[0];

  it.each([
    ['G7001', 'G7001'],
    ['g7001', 'G7001'],
    [' G 7001 ', 'G7001'],
    ['G7001/4', 'G7001'],
    ['G7001/G7004', 'G7001'],
    ['G7004', 'G7004'],
    ['d3125', 'D3125'],
  ])('finds a train written %j as %s, exactly, with its route', async (q, code) => {
    expect(await first(q)).toMatchObject({ type: 'train', code, match: 'exact' });
  });

  it('gives a train its route as subtitle and its other numbers as tags', async () => {
    expect(await first('G7001')).toEqual({
      type: 'train',
      code: 'G7001',
      subtitle: '杭州东 → 上海虹桥',
      tags: ['G7004'],
      match: 'exact',
    });
  });

  it.each([
    ['CR400AF-2001', 'CR400AF-2001'],
    ['CR400AF2001', 'CR400AF-2001'],
    ['cr400af-2001', 'CR400AF-2001'],
    ['CR400AF 2001', 'CR400AF-2001'],
    ['CR400BFA5156', 'CR400BF-A-5156'],
    ['CR400BF-A-5156', 'CR400BF-A-5156'],
    ['CR400AF-2001-02-03F', 'CR400AF-2001'],
  ])('finds an EMU written %j as %s, exactly, with its model and depot', async (q, code) => {
    expect(await first(q)).toMatchObject({ type: 'emu', code, match: 'exact' });
  });

  it.each([
    ['Ｇ７００１', 'train', 'G7001'],
    ['ｇ７００１／４', 'train', 'G7001'],
    ['Ｄ3125', 'train', 'D3125'],
    ['ＣＲ４００ＡＦ－２００１', 'emu', 'CR400AF-2001'],
    ['ＣＲ４００ＢＦＡ５１５６', 'emu', 'CR400BF-A-5156'],
    ['CR400AF\u22122001', 'emu', 'CR400AF-2001'],
  ])('finds %j (full-width, or a minus sign for the hyphen) as %s %s', async (q, type, code) => {
    expect(await first(q)).toMatchObject({ type, code, match: 'exact' });
  });

  it('finds every unit numbered 2001 by the number alone, exactly', async () => {
    const { items } = await search('2001');
    const exact = items.filter((i) => i.match === 'exact').map((i) => i.code);
    expect(exact.sort()).toEqual(['CR400AF-2001', 'CRH380A-2001']);
    expect(items.find((i) => i.code === 'CR400AF-2001')).toMatchObject({
      subtitle: 'CR400AF · 杭州动车所',
    });
  });

  it.each([
    ['杭州东', '杭州东'],
    ['hangzhoudong', '杭州东'],
    ['HangZhouDong', '杭州东'],
    ['hzd', '杭州东'],
    ['zzd', '郑州东'],
  ])(
    'finds a station by %j (name, pinyin, initials), exactly, with its bureau',
    async (q, name) => {
      expect(await first(q)).toEqual({
        type: 'station',
        code: name,
        subtitle: name === '郑州东' ? '郑州局' : '上海局',
        tags: [],
        match: 'exact',
      });
    },
  );

  it('finds stations by the start of the Chinese name and of the pinyin', async () => {
    const byName = (await search('杭州')).items.map((i) => [i.code, i.match]);
    expect(byName).toEqual([
      ['杭州东', 'prefix'],
      ['杭州南', 'prefix'],
    ]);
    const byPinyin = (await search('hangz')).items.map((i) => i.code);
    expect(byPinyin.sort()).toEqual(['杭州东', '杭州南']);
    expect((await search('hz')).items.map((i) => i.code).sort()).toEqual(['杭州东', '杭州南']);
  });

  it('ranks exact > prefix > contains, the shorter match first', async () => {
    const { items } = await search('G70');
    expect(items.map((i) => [i.code, i.match])).toEqual([
      ['G70', 'exact'],
      ['G7001', 'prefix'],
      // A paired run's second number is a train of its own (its timetable is G7001's).
      ['G7004', 'prefix'],
      ['G7011', 'prefix'],
    ]);
    const contains = await search('州东');
    expect(contains.items.map((i) => [i.code, i.match])).toEqual([
      ['杭州东', 'contains'],
      ['郑州东', 'contains'],
    ]);
    const mixed = await search('001');
    // Contained in G7001 and in the units numbered 2001; nothing starts with 001.
    expect(new Set(mixed.items.map((i) => i.match))).toEqual(new Set(['contains']));
    expect(mixed.items.map((i) => i.code)).toContain('G7001');
    expect(mixed.items.map((i) => i.code)).toContain('CR400AF-2001');
  });

  it('keeps to the limit (default 10, at most 50) and says which it used', async () => {
    expect((await search('G70', '&limit=1')).items).toHaveLength(1);
    expect((await search('G70', '&limit=1')).limit).toBe(1);
    expect((await search('2')).limit).toBe(10);
    expect((await search('2', '&limit=500')).limit).toBe(50);
  });

  it('answers a query that matches nothing with no items', async () => {
    expect((await search('zzzzqqq')).items).toEqual([]);
  });

  it.each([
    ['', /^q is required/],
    ['?q=', /^q: q must not be empty|^q must not be empty/],
    ['?q=%20%20', /q must not be empty/],
    [`?q=${'x'.repeat(65)}`, /q must be at most 64 characters/],
    ['?q=G1&limit=0', /^limit must be a whole number of at least 1/],
    ['?q=G1&q=G2', /q must be given once/],
  ])('refuses %j with 400 invalid_param naming the parameter', async (query, message) => {
    const res = await app.inject(`/api/v2/search${query}`);
    expect(res.statusCode).toBe(400);
    const body = errorEnvelopeSchema.parse(res.json());
    expect(body.error.code).toBe('invalid_param');
    expect(body.error.message).toMatch(message);
  });

  it('costs 1 and needs api.search.read: anonymous callers hold it, a key without it is 403', async () => {
    const res = await app.inject('/api/v2/search?q=G7001');
    expect(res.json().meta.cost).toBe(1);
    const user = await makeUser(t.current.db);
    const without = await makeKey(t.current.db, user, { scopes: ['api.records.daily.read'] });
    const refused = await app.inject({ url: '/api/v2/search?q=G7001', headers: bearer(without) });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('insufficient_scope');
    const withKey = await makeKey(t.current.db, user);
    const allowed = await app.inject({ url: '/api/v2/search?q=G7001', headers: bearer(withKey) });
    expect(allowed.statusCode).toBe(200);
  });

  it('sees a new unit and a new timetable once they commit (the versions moved)', async () => {
    expect((await search('CR400AF-2999')).items.filter((i) => i.match === 'exact')).toEqual([]);
    await t.current.db.transaction((tx) => resolveEmuIds(tx, ['CR400AF2999']));
    expect(await first('CR400AF-2999')).toMatchObject({ type: 'emu', code: 'CR400AF-2999' });
    expect(await first('CR400AF2999')).toMatchObject({ code: 'CR400AF-2999', match: 'exact' });
    await ingestTimetableLines(t.current.db, [
      timetable('G9999', '20260701', [
        ['温州南', undefined, '07:00'],
        ['宁波', '08:30'],
      ]),
    ]);
    expect(await first('G9999')).toMatchObject({ code: 'G9999', subtitle: '温州南 → 宁波' });
    expect(await first('wzn')).toMatchObject({ type: 'station', code: '温州南' });
  });

  it('is in the OpenAPI document with its scope, parameters and item schema', async () => {
    const doc = (await app.inject('/api/v2/openapi.json')).json();
    const op = doc.paths['/api/v2/search'].get;
    expect(op.operationId).toBe('Search');
    expect(op['x-scope']).toBe('api.search.read');
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['limit', 'q']);
    expect(JSON.stringify(doc.components.schemas)).toContain('SearchItem');
  });
});
