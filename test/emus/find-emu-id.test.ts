import { beforeAll, describe, expect, it } from 'vitest';
import { addAliases, findEmuId, resolveEmuIds } from '../../src/domain/emus/emu-registry.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
let unit = 0;
let other = 0;

beforeAll(async () => {
  const ids = await resolveEmuIds(t.current.db, ['CR400AF-2001', 'CR400BF-A-5156']);
  unit = ids.get('CR400AF-2001')!;
  other = ids.get('CR400BF-A-5156')!;
  // A written form recorded for another unit: it normalises to CR400AF-2011, but it was
  // written for 5156, and an exact alias wins.
  await addAliases(t.current.db, new Map([['CR400AF2011', other]]));
});

describe('findEmuId: the one lookup of a written EMU code', () => {
  it('finds a unit by its code in any written form the registry normalises', async () => {
    const db = t.current.db;
    for (const written of [
      'CR400AF-2001',
      'CR400AF2001',
      'cr400af-2001',
      'cr400af2001',
      ' CR400AF–2001 ',
      'CR400AF-2001-02-03F',
      'CR400AF-2001-02',
    ])
      expect(await findEmuId(db, written), written).toBe(unit);
    expect(await findEmuId(db, 'cr400bfa5156')).toBe(other);
  });

  it('an alias recorded exactly wins over the normalised code; unknown or malformed names nothing', async () => {
    const db = t.current.db;
    expect(await findEmuId(db, 'CR400AF2011')).toBe(other);
    expect(await findEmuId(db, 'CR400AF-2011')).toBeUndefined();
    expect(await findEmuId(db, 'CR400AF-9999')).toBeUndefined();
    expect(await findEmuId(db, '#?!')).toBeUndefined();
    expect(await findEmuId(db, '')).toBeUndefined();
  });
});
