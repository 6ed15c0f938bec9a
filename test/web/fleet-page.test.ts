import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadFixtureWeek } from '../api/helpers/fixture-week.js';
import { LAST_DAY, useWebApp } from './helpers/web-harness.js';
import {
  HOSTILE_ALIAS,
  HOSTILE_DEPOT,
  HOSTILE_UNIT,
  importHostileUnit,
} from './helpers/hostile-fleet.js';
import { ymdOfServiceDay } from '../../src/shared/time/service-day.js';

const FLEET = parse(
  readFileSync(path.resolve(import.meta.dirname, '../../fixtures/fleet.csv'), 'utf8'),
  { columns: true },
) as { emu_code: string; model: string; bureau: string; depot: string }[];

const web = useWebApp(async (db) => {
  await loadFixtureWeek(db);
  await importHostileUnit(db);
});

const page = (url: string, headers: Record<string, string> = {}) =>
  web.app.inject({ url, headers: { accept: 'text/html', ...headers } });

/** Each model section of a fleet page: its model and, per table, caption text and unit codes. */
function groups(body: string) {
  return [...body.matchAll(/<section class="card fleet-model"[\s\S]*?<\/section>/g)].map((m) => {
    const section = m[0];
    const model = /<span class="chip[^"]*">([^<]+)<\/span>/.exec(section)![1]!;
    const tables = [
      ...section.matchAll(/<table class="reflow fleet-units">[\s\S]*?<\/table>/g),
    ].map((tm) => ({
      caption: /<caption>([\s\S]*?)<\/caption>/.exec(tm[0])![1]!.replace(/<[^>]+>|\s+/g, ''),
      units: [...tm[0].matchAll(/<th scope="row"[^>]*>\s*<a href="\/emu\/([^"]+)">/g)].map((u) =>
        decodeURIComponent(u[1]!),
      ),
    }));
    return { model, tables };
  });
}

const units = (body: string) => groups(body).flatMap((g) => g.tables.flatMap((tb) => tb.units));

/** The records of a day by unit code, from GetDailyRecords (every page). */
async function dayTrains(serviceDay: number): Promise<Map<string, string[]>> {
  const res = await web.app.inject({
    url: `/api/v2/records/daily?date=${ymdOfServiceDay(serviceDay)}&limit=1000`,
  });
  expect(res.statusCode).toBe(200);
  const data = res.json().data as {
    items: { emuId: number; trainCode: { prefix: string; number: number } }[];
    emuCodeMappings: Record<string, string>;
    nextCursor: string;
  };
  expect(data.nextCursor).toBe('');
  const out = new Map<string, string[]>();
  for (const item of [...data.items].reverse()) {
    const code = data.emuCodeMappings[item.emuId]!;
    out.set(code, [...(out.get(code) ?? []), `${item.trainCode.prefix}${item.trainCode.number}`]);
  }
  return out;
}

describe('the fleet page /fleet', () => {
  it('shows every unit of the fleet once, grouped by model, then bureau and depot', async () => {
    const res = await page('/fleet');
    expect(res.statusCode).toBe(200);
    expect(res.body.match(/<h1[\s>]/g)).toHaveLength(1);
    const shown = units(res.body);
    expect(new Set(shown).size).toBe(shown.length);
    for (const row of FLEET) {
      // A fleet code is listed as its canonical form (CR400BFA5157 is CR400BF-A-5157).
      const code = row.emu_code === 'CR400BFA5157' ? 'CR400BF-A-5157' : row.emu_code;
      expect(shown, code).toContain(code);
    }
    expect(shown).toContain(HOSTILE_UNIT);
    for (const group of groups(res.body)) {
      for (const table of group.tables) {
        for (const code of table.units) {
          const row = FLEET.find((r) => r.emu_code.replace('BFA5157', 'BF-A-5157') === code);
          if (!row) continue;
          expect(group.model, code).toBe(row.model);
          expect(table.caption, code).toContain(`${row.bureau}·${row.depot}`);
        }
      }
    }
    const models = groups(res.body).map((g) => g.model);
    expect(new Set(models).size).toBe(models.length);
  });

  it('lists what each unit ran on the latest built day, linked, as GetDailyRecords has it', async () => {
    const res = await page('/fleet');
    const expected = await dayTrains(LAST_DAY);
    expect(expected.size).toBeGreaterThan(3);
    expect(res.body).toContain('2026年8月16日 担当车次');
    for (const [code, trains] of expected) {
      const row = new RegExp(
        `<a href="/emu/${code}">${code}</a>\\s*</th>\\s*<td[^>]*>([\\s\\S]*?)</td>`,
      ).exec(res.body);
      expect(row, code).not.toBeNull();
      const linked = [...row![1]!.matchAll(/<a href="\/train\/([^"]+)">/g)].map((m) => m[1]);
      expect(linked, code).toEqual(trains);
    }
  });

  it('filters by model, bureau and depot, and keeps the choice in the form', async () => {
    const byModel = await page(`/fleet?model=CR400AF&bureau=&depot=`);
    expect(byModel.statusCode).toBe(200);
    expect(new Set(groups(byModel.body).map((g) => g.model))).toEqual(new Set(['CR400AF']));
    expect(units(byModel.body).sort()).toEqual(
      [...FLEET.filter((r) => r.model === 'CR400AF').map((r) => r.emu_code), HOSTILE_UNIT].sort(),
    );
    expect(byModel.body).toMatch(/<option value="CR400AF"\s+selected\s*>\s*CR400AF\s*<\/option>/);
    const both = await page(
      `/fleet?bureau=${encodeURIComponent('上海局')}&depot=${encodeURIComponent('杭州动车所')}`,
    );
    expect(units(both.body).sort()).toEqual(['CRH2A-2010', 'CRH2A-2011']);
    const none = await page(`/fleet?model=CR300AF&bureau=${encodeURIComponent('北京局')}`);
    expect(none.statusCode).toBe(200);
    expect(units(none.body)).toEqual([]);
  });

  it('answers a filter value that is none of the fleet with the 400 page naming it', async () => {
    for (const [query, field] of [
      ['model=CR999', 'model'],
      [`bureau=${encodeURIComponent('火星局')}`, 'bureau'],
      ['depot=x', 'depot'],
      ['model=CR400AF&model=CR400BF', 'model'],
    ]) {
      const res = await page(`/fleet?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.body, query).toMatch(new RegExp(`<p role="alert">${field}[:：]`));
    }
  });

  it('sends an ETag from the data versions and a 304 for it', async () => {
    const first = await page('/fleet');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await page('/fleet', { 'if-none-match': etag })).statusCode).toBe(304);
    const filtered = await page('/fleet?model=CR400AF');
    expect(filtered.headers.etag).not.toBe(etag);
    expect((await page('/fleet', { 'accept-language': 'en' })).headers.etag).not.toBe(etag);
  });
});

describe('a depot page /fleet/depot/{depot}', () => {
  it("lists the depot's units and what they ran, linked from the fleet", async () => {
    const depot = '上海虹桥动车所';
    const fleet = await page('/fleet');
    expect(fleet.body).toContain(`href="/fleet/depot/${encodeURIComponent(depot)}"`);
    const res = await page(`/fleet/depot/${encodeURIComponent(depot)}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(new RegExp(`<h1>${depot}</h1>`));
    expect(units(res.body).sort()).toEqual(
      FLEET.filter((r) => r.depot === depot)
        .map((r) => r.emu_code.replace('BFA5157', 'BF-A-5157'))
        .sort(),
    );
    const etag = res.headers.etag as string;
    const again = await page(`/fleet/depot/${encodeURIComponent(depot)}`, {
      'if-none-match': etag,
    });
    expect(again.statusCode).toBe(304);
  });

  it('answers an unknown depot with the 404 page and depots it may have meant', async () => {
    const res = await page(`/fleet/depot/${encodeURIComponent('上海虹桥')}`);
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain(`href="/fleet/depot/${encodeURIComponent('上海虹桥动车所')}"`);
  });

  it('prints a hostile depot name and alias as text', async () => {
    const res = await page(`/fleet/depot/${encodeURIComponent(HOSTILE_DEPOT)}`);
    expect(res.statusCode).toBe(200);
    expect(units(res.body)).toEqual([HOSTILE_UNIT]);
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    const fleet = await page('/fleet');
    expect(fleet.body).not.toContain('<img src=x');
    expect(fleet.body).not.toContain(HOSTILE_ALIAS);
    expect(fleet.body).toContain('<option value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
  });
});
