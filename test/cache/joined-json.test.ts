import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JoinedJson } from '../../src/shared/cache/joined-json.js';

describe('JoinedJson', () => {
  it('slices items [from, to) joined by commas, for every range, ends and empty ranges included', () => {
    fc.assert(
      fc.property(fc.array(fc.json({ maxDepth: 1 }), { maxLength: 12 }), (items) => {
        const joined = new JoinedJson(items);
        expect(joined.text).toBe(items.join(','));
        for (let from = 0; from <= items.length; from++) {
          for (let to = from; to <= items.length; to++) {
            expect(joined.slice(from, to)).toBe(items.slice(from, to).join(','));
          }
        }
      }),
    );
  });
});
