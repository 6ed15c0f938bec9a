import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { emuAllocationDataSchema } from '../../src/http/api/routes/allocation-emu.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeApp } from './helpers/api-harness.js';
import { loadFixtureWeek } from './helpers/fixture-week.js';
import { expectNoNulls, expectQuotaHeaders } from './helpers/json-checks.js';

const successSchema = dataEnvelope(emuAllocationDataSchema);

const FULL_ROW = {
  emu_code: 'CR400AF-C-2214',
  model: 'CR400AF-C',
  train_set_no: '2214',
  bureau: '北京局',
  train_depot: '北京动车段',
  depot: '北京南动车所',
  sub_model: 'CR400AF-C',
  custom_type: '智能型',
  trainset_manufacturer: '中车青岛四方',
  trailer_manufacturer: '中车青岛四方',
  manufacture_month: '2021-06',
  toilet_status: '全部可用',
  socket_location: '座椅下方',
  business_seat_type: '平躺',
  model_remark: '京张智能动车组',
  note: '冬奥涂装',
  design_max_speed: '350',
  operating_max_speed: '350',
  is_public: 'false',
  railway_travel_code_enabled: 'yes',
  first_class_power_legrest: 'true',
  tags: '智能|冬奥',
  alias: 'CR400AFC2214|冬奥号',
};

describe('GET /api/v2/allocation/emu/{emuCode}', () => {
  const t = useTestDatabase();
  let app: ApiApp;

  beforeAll(async () => {
    await loadFixtureWeek(t.current.db);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-fleet-'));
    try {
      const file = path.join(dir, 'fleet.csv');
      const columns = Object.keys(FULL_ROW);
      const quote = (v: string) => (v.includes(',') ? `"${v}"` : v);
      await writeFile(
        file,
        `${columns.join(',')}\n${Object.values(FULL_ROW).map(quote).join(',')}\n`,
      );
      await importFleet(t.current.db, file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    app = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '100' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (code: string) =>
    app.inject({ method: 'GET', url: `/api/v2/allocation/emu/${encodeURIComponent(code)}` });

  it('answers every field of the fleet import, aliases and emuCodeMappings, for 1', async () => {
    const res = await get('CR400AF-C-2214');
    expect(res.statusCode).toBe(200);
    const body = successSchema.parse(res.json());
    expectNoNulls(res.json());
    expect(body.meta.cost).toBe(1);
    expectQuotaHeaders(res, body.meta);
    const { emuId, ...rest } = body.data;
    expect(rest).toEqual({
      model: 'CR400AF-C',
      trainSetNo: '2214',
      bureau: '北京局',
      trainDepot: '北京动车段',
      depot: '北京南动车所',
      subModel: 'CR400AF-C',
      customType: '智能型',
      trainsetManufacturer: '中车青岛四方',
      trailerManufacturer: '中车青岛四方',
      manufactureMonth: '2021-06',
      toiletStatus: '全部可用',
      socketLocation: '座椅下方',
      businessSeatType: '平躺',
      modelRemark: '京张智能动车组',
      note: '冬奥涂装',
      designMaxSpeed: 350,
      operatingMaxSpeed: 350,
      isPublic: false,
      railwayTravelCodeEnabled: true,
      firstClassPowerLegrest: true,
      tags: ['智能', '冬奥'],
      alias: ['CR400AFC2214', '冬奥号'].sort(),
      coachLayouts: [],
      emuCodeMappings: { [emuId]: 'CR400AF-C-2214' },
    });
  });

  it('finds the unit by any alias or any written form of its code, and maps it to its canonical code', async () => {
    const canonical = successSchema.parse((await get('CR400AF-C-2214')).json()).data;
    for (const alias of ['冬奥号', 'CR400AFC2214']) {
      const { data } = successSchema.parse((await get(alias)).json());
      expect(data, alias).toEqual(canonical);
    }
    const fixtureAlias = successSchema.parse((await get('5157号')).json()).data;
    expect(Object.values(fixtureAlias.emuCodeMappings!)).toEqual(['CR400BF-A-5157']);
    expect(fixtureAlias.alias).toEqual(['5157号', 'CR400BFA5157']);
    // Forms no sighting wrote are normalised by the registry's rules (findEmuId): lower case,
    // unhyphenated, a travel-code seat tail.
    for (const other of ['cr400af-c-2214', 'CR400AFC-2214', 'CR400AF-C-2214-02-03F']) {
      const res = await get(other);
      expect(res.statusCode, other).toBe(200);
      expect(successSchema.parse(res.json()).data, other).toEqual(canonical);
    }
  });

  it('carries the coach layouts by coach number', async () => {
    const { data } = successSchema.parse((await get('CR400AF-2001')).json());
    expect(data.coachLayouts.map((c) => c.coachNo)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(data.coachLayouts[0]).toEqual({
      coachNo: 1,
      coachTypeCode: 'ZYS',
      coachTypeName: '一等座/商务座车',
      capacity: 33,
      hasPower: false,
      hasPantograph: false,
      hasLargeLuggageArea: true,
      hasAccessibleFacility: false,
    });
    // Sightings wrote it CR400AF2001 too: a written form becomes an alias.
    expect(data).toMatchObject({ bureau: '北京局', designMaxSpeed: 350, alias: ['CR400AF2001'] });
  });

  it('gives zero values for a unit only ever seen in observations', async () => {
    // CR400BF-Z-5301 is missing from the fixture fleet: registered by its first sighting.
    const res = await get('CR400BF-Z-5301');
    expect(res.statusCode).toBe(200);
    expectNoNulls(res.json());
    const { data } = successSchema.parse(res.json());
    expect(data).toMatchObject({
      model: 'CR400BF-Z',
      trainSetNo: '5301',
      bureau: '',
      depot: '',
      note: '',
      designMaxSpeed: 0,
      operatingMaxSpeed: 0,
      railwayTravelCodeEnabled: false,
      firstClassPowerLegrest: false,
      tags: [],
      coachLayouts: [],
    });
  });

  it('answers 404 not_found, free, for an unknown code', async () => {
    for (const code of ['CR400AF-9999', '无此车', 'x']) {
      const res = await get(code);
      expect(res.statusCode, code).toBe(404);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('not_found');
      expect(body.error.message).toContain(code);
      expect(body.meta.cost).toBe(0);
      expectQuotaHeaders(res, body.meta);
    }
  });

  for (const [name, segment] of [
    ['a blank code', '%20%20'],
    ['a NUL byte', 'CR400AF%002001'],
    ['a control character', 'CR400AF-2001%0A'],
  ] as const) {
    it(`refuses ${name} with 400 invalid_param naming emuCode`, async () => {
      const res = await app.inject(`/api/v2/allocation/emu/${segment}`);
      expect(res.statusCode).toBe(400);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('invalid_param');
      expect(body.error.message).toMatch(/^emuCode/);
      expect(body.meta.cost).toBe(0);
    });
  }
});
