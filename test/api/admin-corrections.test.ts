import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import type { User } from '../../src/domain/accounts/users.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { checkRequestedScopes } from '../../src/domain/oauth/client-input.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { listStaleDays } from '../../src/domain/records/stale-days.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { bearer, makeKey, makeUser } from './helpers/accounts.js';
import { makeApp } from './helpers/api-harness.js';

/** The administrators' corrections over HTTP, and the DJ train numbers in API paths. */
const t = useTestDatabase();
const DAY = serviceDayFromYmd('20260805');
let app: ApiApp;
let dir: string;
let admin: User;
let adminKey: string;
let userKey: string;

const at = (hhmm: string) => `2026-08-05T${hhmm}:00+08:00`;
const sighting = (train: string, emu: string, ref: string, hhmm = '08:00') =>
  JSON.stringify({ observedAt: at(hhmm), trainCode: train, emuCode: emu, source: 'report', ref });

async function ingest(lines: string[], allowUnknownEmuForms = false): Promise<void> {
  const file = path.join(dir, `in-${Math.random().toString(36).slice(2)}.ndjson`);
  await writeFile(file, lines.join('\n') + '\n');
  const r = await ingestObservations(t.current.db, file, { allowUnknownEmuForms });
  expect(r.rejected).toBe(0);
}

const call = (method: 'GET' | 'POST', url: string, key?: string, payload?: unknown) =>
  app.inject({
    method,
    url,
    headers: key ? bearer(key) : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

beforeAll(async () => {
  const { db } = t.current;
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-admin-corrections-'));
  const fleet = path.join(dir, 'fleet.csv');
  await writeFile(fleet, 'emu_code,model\nCR400AF-2001,CR400AF\nCR400AF-2002,CR400AF\n');
  await importFleet(db, fleet);
  await ingest([
    sighting('G1', 'CR400AF-2001', 'g1-a'),
    sighting('G1', 'CR400AF-2001', 'g1-b', '08:05'),
    sighting('DJ8858', 'CR400AF-2002', 'dj-a', '23:00'),
    sighting('DJ5801/4', 'CR400AF-2002', 'dj-b', '06:00'),
  ]);
  await ingest([sighting('G3', 'banana', 'phantom')], true);
  await buildDailyRecords(db, DAY);
  admin = await makeUser(db, 'admin', 'admin');
  adminKey = await makeKey(db, admin);
  userKey = await makeKey(db, await makeUser(db, 'alice'));
  app = await makeApp(db);
});
afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('/api/v2/admin/corrections', () => {
  it('is for administrators: anonymous 401, a user 403, never an OAuth app', async () => {
    expect((await call('GET', '/api/v2/admin/corrections')).statusCode).toBe(401);
    const user = await call('GET', '/api/v2/admin/corrections', userKey);
    expect(user.statusCode).toBe(403);
    expect(user.json().error.message).toMatch(/api\.admin\.corrections\.write/);
    expect(scopesOfRole('user')).not.toContain('api.admin.corrections.write');
    expect(scopesOfRole('admin')).toContain('api.admin.corrections.write');
    expect(() => checkRequestedScopes(['api.admin.corrections.write'])).toThrow(
      'requestedScopes[0]: api.admin.corrections.write is for administrators and cannot be requested by an app',
    );
    const listed = await call('GET', '/api/v2/admin/corrections', adminKey);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data).toEqual({ items: [] });
  });

  it('retracts by source + ref, refuses what it cannot do (404, 409, 400 naming the field), undoes', async () => {
    const r = await call('POST', '/api/v2/admin/corrections', adminKey, {
      kind: 'retract',
      source: 'report',
      ref: 'g1-b',
      reason: 'duplicate photo of the same run',
    });
    expect(r.statusCode).toBe(200);
    const c = r.json().data.correction;
    expect(c).toMatchObject({
      kind: 'retract',
      reason: 'duplicate photo of the same run',
      actor: { via: 'api', userId: admin.userId, name: admin.username },
      source: 'report',
      ref: 'g1-b',
      serviceDays: [DAY - 1, DAY],
    });
    expect(c.createdAt).toEqual(expect.any(Number));
    expect((await listStaleDays(t.current.db)).map((s) => s.serviceDay)).toEqual([DAY - 1, DAY]);

    const again = await call('POST', '/api/v2/admin/corrections', adminKey, {
      kind: 'retract',
      source: 'report',
      ref: 'g1-b',
      reason: 'again',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'correction_conflict' });
    const missing = await call('POST', '/api/v2/admin/corrections', adminKey, {
      kind: 'retract',
      observationId: 987654,
      reason: 'x',
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.message).toBe('observation: no observation 987654');
    const noReason = await call('POST', '/api/v2/admin/corrections', adminKey, {
      kind: 'retract',
      observationId: 1,
    });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().error.message).toMatch(/reason/);
    const both = await call('POST', '/api/v2/admin/corrections', adminKey, {
      kind: 'retract',
      source: 'report',
      reason: 'x',
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().error.message).toMatch(/^ref: required/);

    const undo = await call('POST', `/api/v2/admin/corrections/${c.id}/undo`, adminKey, {
      reason: 'not a duplicate',
    });
    expect(undo.statusCode).toBe(200);
    expect(undo.json().data.correction).toMatchObject({ kind: 'undo', undoes: c.id });
    const twice = await call('POST', `/api/v2/admin/corrections/${c.id}/undo`, adminKey, {
      reason: 'twice',
    });
    expect(twice.statusCode).toBe(409);
    const list = (await call('GET', '/api/v2/admin/corrections?limit=10', adminKey)).json().data;
    expect(list.items.map((i: { id: number }) => i.id)).toEqual([c.id + 1, c.id]);
    expect(list.items[1]).toMatchObject({ id: c.id, undoneBy: c.id + 1 });
  });

  it('merges the phantom BANANA into CR400AF-2002: its code finds the unit, its records move', async () => {
    const before = await call('GET', '/api/v2/history/emu/BANANA', adminKey);
    const bananaId = before.json().data.emuId;
    const r = await call('POST', '/api/v2/admin/corrections', adminKey, {
      kind: 'merge-emu',
      from: 'BANANA',
      into: 'CR400AF-2002',
      reason: 'typing error',
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.correction).toMatchObject({
      kind: 'merge-emu',
      fromEmuId: bananaId,
      fromEmuCode: 'BANANA',
      intoEmuCode: 'CR400AF-2002',
    });
    await buildDailyRecords(t.current.db, DAY);
    const allocation = (await call('GET', '/api/v2/allocation/emu/BANANA')).json().data;
    expect(allocation.emuCodeMappings).toEqual({ [allocation.emuId]: 'CR400AF-2002' });
    expect(allocation.alias).toContain('BANANA');
    const history = (await call('GET', '/api/v2/history/emu/BANANA')).json().data;
    expect(history.emuId).toBe(allocation.emuId);
    expect(
      history.items.map((i: { trainCode: { prefix: string; number: number } }) => i.trainCode),
    ).toEqual(expect.arrayContaining([{ prefix: 'G', number: 3 }]));
    const unknownInto = await call('POST', '/api/v2/admin/corrections', adminKey, {
      kind: 'merge-emu',
      from: 'CR400AF-2001',
      into: 'CR400AF-9999',
      reason: 'x',
    });
    expect(unknownInto.statusCode).toBe(404);
    expect(unknownInto.json().error.message).toBe('into: no EMU "CR400AF-9999"');
  });
});

describe('the OpenAPI document', () => {
  it('declares the corrections with their scope, bodies and the 409', async () => {
    const doc = (await app.inject('/api/v2/openapi.json')).json();
    const create = doc.paths['/api/v2/admin/corrections'].post;
    expect(create.operationId).toBe('CreateCorrection');
    expect(create.tags).toEqual(['Corrections']);
    expect(JSON.stringify(create.security)).toContain('api.admin.corrections.write');
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['200', '400', '403', '404', '409']),
    );
    expect(JSON.stringify(create.requestBody)).toContain('merge-emu');
    expect(doc.paths['/api/v2/admin/corrections'].get.operationId).toBe('ListCorrections');
    expect(doc.paths['/api/v2/admin/corrections/{correctionId}/undo'].post.operationId).toBe(
      'UndoCorrection',
    );
  });
});

describe('DJ train numbers in API paths', () => {
  it('answers dj8858 and DJ5804 with prefix "DJ"; refuses XYZ1 and Q99 naming the field and why', async () => {
    const dj = await call('GET', '/api/v2/history/train/dj8858');
    expect(dj.statusCode).toBe(200);
    expect(dj.json().data.trainCode).toEqual({ prefix: 'DJ', number: 8858 });
    expect(dj.json().data.items).toHaveLength(1);
    const paired = await call('GET', '/api/v2/history/train/DJ5804');
    expect(paired.json().data.trainCode).toEqual({ prefix: 'DJ', number: 5804 });
    const records = (await call('GET', '/api/v2/records/daily?date=20260805&limit=50')).json().data;
    expect(records.items.map((i: { trainCode: unknown }) => i.trainCode)).toEqual(
      expect.arrayContaining([
        { prefix: 'DJ', number: 8858 },
        { prefix: 'DJ', number: 5801 },
      ]),
    );
    for (const [bad, why] of [
      ['XYZ1', 'XYZ is not a train-number prefix in use'],
      ['Q99', 'Q is not a train-number prefix in use'],
    ]) {
      const r = await call('GET', `/api/v2/history/train/${bad}`);
      expect(r.statusCode).toBe(400);
      expect(r.json().error.code).toBe('invalid_param');
      expect(r.json().error.message).toContain('trainCode');
      expect(r.json().error.message).toContain(why);
    }
  });
});
