import { describe, expect, it } from 'vitest';
import { Lru } from '../../src/shared/cache/lru.js';

describe('Lru', () => {
  it('bounded by entries: past the bound the least recently used goes first, get marks use, peek does not', () => {
    const lru = new Lru<string, number>({ maxEntries: 2 });
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect([lru.has('a'), lru.has('b'), lru.has('c')]).toEqual([true, false, true]);
    expect(lru.peek('a')).toBe(1);
    lru.set('d', 4);
    // peek left 'a' the least recently used: it goes, 'c' stays.
    expect([lru.has('a'), lru.has('c'), lru.has('d')]).toEqual([false, true, true]);
    expect(lru.size).toBe(2);
  });

  it('bounded by weight, from weightOf or the weight given with set; clear forgets all', () => {
    const byLength = new Lru<string, string>({ maxWeight: 5, weightOf: (v) => v.length });
    byLength.set('x', 'abc');
    byLength.set('y', 'de');
    expect(byLength.weight).toBe(5);
    byLength.set('z', 'f');
    expect([byLength.has('x'), byLength.has('y'), byLength.has('z')]).toEqual([false, true, true]);

    const given = new Lru<number, object>({ maxWeight: 10 });
    given.set(1, {}, 6);
    given.set(2, {}, 6);
    expect([given.has(1), given.has(2)]).toEqual([false, true]);
    expect(given.weight).toBe(6);
    given.clear();
    expect([given.size, given.weight]).toEqual([0, 0]);
  });
});
