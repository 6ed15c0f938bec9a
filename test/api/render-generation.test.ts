import { describe, expect, it } from 'vitest';
import { PageCache } from '../../src/http/api/page-cache.js';
import { renderGeneration } from '../../src/http/api/render-generation.js';
import { ByteCache } from '../../src/shared/cache/byte-cache.js';
import { DataVersionReader, recordsVersion } from '../../src/shared/cache/data-versions.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * A kept page's ETag names the code that wrote it as well as the data version: a deploy that
 * changes how pages are written changes their tags, so a client holding the old bytes is not
 * answered 304 for them; processes running the same code agree.
 */
const t = useTestDatabase();

async function etagOf(generation: string): Promise<string> {
  const cache = new PageCache(new DataVersionReader(t.current.db), new ByteCache(), generation);
  const page = await cache.page('records:1:first', recordsVersion(1), async () => ({
    body: '{}',
    records: 0,
  }));
  return page.etag;
}

describe('render generation', () => {
  it('is a digest of the API code, the same on every call', () => {
    expect(renderGeneration()).toMatch(/^[\w-]{16}$/);
    expect(renderGeneration()).toBe(renderGeneration());
  });

  it("is part of a kept page's ETag: the same code gives the same tag, other code another", async () => {
    const current = await etagOf(renderGeneration());
    expect(await etagOf(renderGeneration())).toBe(current);
    expect(await etagOf('other-code')).not.toBe(current);
  });
});
