import { describe, expect, it } from 'vitest';
import { fleetValues, readFleet } from '../../src/domain/emus/read-fleet.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

describe('readFleet', () => {
  it('lists every unit standing on its own by model, bureau, depot and code, merged units left out', async () => {
    const { db } = t.current;
    const ids = await db.query<{ id: number; code: string }>(
      `INSERT INTO emus (code, model, bureau, train_depot, depot, registered_by) VALUES
         ('CRH2A-2011', 'CRH2A', '上海局', '上海动车段', '杭州动车所', 'fleet'),
         ('CR400AF-2002', 'CR400AF', '北京局', '北京动车段', '北京南动车所', 'fleet'),
         ('CR400AF-2001', 'CR400AF', '北京局', '北京动车段', '北京南动车所', 'fleet'),
         ('CR400AF-2003', 'CR400AF', '北京局', '北京动车段', '北京西动车所', 'fleet'),
         ('CR400AF-9999', 'CR400AF', '', '', '', 'observation'),
         ('CR400AF-2O01', '', '', '', '', 'observation')
       RETURNING id, code`,
    );
    const id = (code: string) => ids.rows.find((r) => r.code === code)!.id;
    // The phantom written with a letter O was merged into CR400AF-2001 by a correction.
    const correction = await db.query<{ id: string }>(
      `INSERT INTO corrections (kind, reason, actor_via, actor_name, from_emu_id, into_emu_id)
       VALUES ('merge-emu', 'test', 'cli', 'test', $1, $2) RETURNING id`,
      [id('CR400AF-2O01'), id('CR400AF-2001')],
    );
    await db.query(
      `INSERT INTO emu_merges (from_emu_id, into_emu_id, target_emu_id, correction_id)
       VALUES ($1, $2, $2, $3)`,
      [id('CR400AF-2O01'), id('CR400AF-2001'), correction.rows[0]!.id],
    );
    const fleet = await readFleet(db);
    expect(fleet.map((u) => u.code)).toEqual([
      'CR400AF-9999',
      'CR400AF-2001',
      'CR400AF-2002',
      'CR400AF-2003',
      'CRH2A-2011',
    ]);
    expect(fleet[1]).toEqual({
      emuId: id('CR400AF-2001'),
      code: 'CR400AF-2001',
      model: 'CR400AF',
      bureau: '北京局',
      trainDepot: '北京动车段',
      depot: '北京南动车所',
    });
    expect(fleetValues(fleet, 'model')).toEqual(['CR400AF', 'CRH2A']);
    expect(fleetValues(fleet, 'depot')).toEqual(['北京南动车所', '北京西动车所', '杭州动车所']);
    expect(fleetValues(fleet, 'bureau')).toEqual(['上海局', '北京局']);
  });
});
