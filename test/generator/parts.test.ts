import { describe, expect, it } from 'vitest';
import { parseEmuCode } from '../../src/domain/emus/normalize-emu-code.js';
import { apportion, buildFleet, EMU_MODELS } from '../../src/generator/fleet.js';
import { Rng } from '../../src/generator/rng.js';
import { compactEmuCode, isoLocal } from '../../src/generator/sightings.js';
import { buildStationNetwork } from '../../src/generator/stations.js';
import { TrainNumberPool } from '../../src/generator/train-numbers.js';
import { expandTrainCodes } from '../../src/domain/trains/train-code.js';

describe('compactEmuCode', () => {
  it('leaves dashes out only where the code still names the same unit', () => {
    expect(compactEmuCode('CR400AF-2001')).toBe('CR400AF2001');
    expect(compactEmuCode('CR400BF-A-5156')).toBe('CR400BFA5156');
    expect(compactEmuCode('CRH380AL-2541')).toBe('CRH380AL2541');
    // CRH1AA1181 would read as model CRH1AA: keep the variant's dash.
    expect(compactEmuCode('CRH1A-A-1181')).toBe('CRH1A-A1181');
    for (const m of EMU_MODELS) {
      const code = `${m.model}-${String(m.firstNumber).padStart(4, '0')}`;
      expect(parseEmuCode(code).code).toBe(code);
      expect(parseEmuCode(compactEmuCode(code)).code).toBe(code);
    }
  });
});

describe('isoLocal', () => {
  it('writes Shanghai local time with its offset', () => {
    expect(isoLocal(1785535200)).toBe('2026-08-01T06:00:00+08:00');
    expect(isoLocal(1785599999)).toBe('2026-08-01T23:59:59+08:00');
  });

  it('uses the tz database, so summer time of 1988 shows as +09:00', () => {
    // 1988-07-01T00:00:00Z: 09:00 local under UTC+9.
    expect(isoLocal(583718400)).toBe('1988-07-01T09:00:00+09:00');
  });
});

describe('apportion', () => {
  it('splits exactly and in proportion', () => {
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportion(7, [5, 0, 2]).reduce((a, b) => a + b, 0)).toBe(7);
  });
});

describe('buildFleet', () => {
  it('keeps cold-resistant models in northern bureaus and CRH1 in southern ones', () => {
    const fleet = buildFleet(Rng.fromSeed(4), 3000);
    expect(new Set(fleet.map((u) => u.code)).size).toBe(3000);
    for (const u of fleet) {
      if (u.model.region === 'north') expect(u.bureau.north, u.code).toBe(true);
      if (u.model.region === 'south') expect(u.bureau.north, u.code).toBe(false);
    }
  });
});

describe('buildStationNetwork', () => {
  it('links stations of a corridor with plausible distances', () => {
    const net = buildStationNetwork();
    const bj = net.byName.get('北京南')!.index;
    const sh = net.byName.get('上海虹桥')!.index;
    const leg = net.leg(bj, sh)!;
    expect(leg.corridor.name).toBe('京沪高铁');
    // The real line is 1,318 km.
    expect(leg.km).toBeGreaterThan(1200);
    expect(leg.km).toBeLessThan(1450);
    expect(net.leg(sh, bj)!.km).toBe(leg.km);
    expect(net.leg(bj, net.byName.get('昆明南')!.index)).toBeUndefined();
  });
});

describe('TrainNumberPool', () => {
  it('hands out unique numbers with the parity of the direction', () => {
    const pool = new TrainNumberPool(Rng.fromSeed(1));
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const odd = i % 2 === 0;
      const code = pool.take('G', 1, odd);
      expect(seen.has(code)).toBe(false);
      seen.add(code);
      expect(Number(code.slice(1)) % 2).toBe(odd ? 1 : 0);
    }
  });

  it('pairs numbers that differ in their last two digits, written as G4340/37', () => {
    const pool = new TrainNumberPool(Rng.fromSeed(2));
    for (let i = 0; i < 50; i++) {
      const pair = pool.takePaired('G', 1, false)!;
      expect(pair).toBeDefined();
      const [a, b] = pair;
      expect(expandTrainCodes(`${a}/${b.slice(-2)}`)).toEqual([a, b]);
      expect(Number(a.slice(1)) % 2).not.toBe(Number(b.slice(1)) % 2);
    }
  });

  it('falls back to other ranges, then other prefixes, when one runs dry', () => {
    const pool = new TrainNumberPool(Rng.fromSeed(3));
    const codes = Array.from({ length: 1200 }, () => pool.take('G', 0, true));
    expect(new Set(codes).size).toBe(1200);
    expect(codes.filter((c) => Number(c.slice(1)) < 1000)).toHaveLength(500);
  });
});
