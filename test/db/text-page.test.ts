import { describe, expect, it } from 'vitest';
import { textPageLines } from '../../src/shared/db/text-page.js';

describe('textPageLines', () => {
  it('keeps at most limit lines of the limit + 1 asked for, and says whether more followed', () => {
    expect(textPageLines('a\nb\nc', 2)).toEqual({ lines: ['a', 'b'], more: true });
    expect(textPageLines('a\nb', 2)).toEqual({ lines: ['a', 'b'], more: false });
    expect(textPageLines('a', 2)).toEqual({ lines: ['a'], more: false });
  });

  it('reads an empty page (NULL or "") as no lines, and every line without a limit', () => {
    for (const empty of [null, undefined, '']) {
      expect(textPageLines(empty, 5)).toEqual({ lines: [], more: false });
      expect(textPageLines(empty)).toEqual({ lines: [], more: false });
    }
    expect(textPageLines('a\nb\nc')).toEqual({ lines: ['a', 'b', 'c'], more: false });
  });
});
