import { describe, expect, it } from 'vitest';
import { BoundedKeySet } from '../../src/shared/cache/bounded-key-set.js';

describe('BoundedKeySet', () => {
  it('tells the second sight of a key, then starts that key over', () => {
    const seen = new BoundedKeySet(10);
    expect(seen.seenBefore('a')).toBe(false);
    expect(seen.has('a')).toBe(true);
    expect(seen.seenBefore('a')).toBe(true);
    expect(seen.has('a')).toBe(false);
    expect(seen.seenBefore('a')).toBe(false);
  });

  it('holds at most its limit: past it, every key is forgotten at once', () => {
    const seen = new BoundedKeySet(3);
    for (const key of ['a', 'b', 'c']) seen.add(key);
    expect(['a', 'b', 'c'].every((key) => seen.has(key))).toBe(true);
    seen.add('d');
    expect(['a', 'b', 'c'].some((key) => seen.has(key))).toBe(false);
    expect(seen.has('d')).toBe(true);
  });
});
