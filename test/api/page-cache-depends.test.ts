import { describe, expect, it } from 'vitest';
import { PageCache } from '../../src/http/api/page-cache.js';
import { DataVersionReader, type DataVersionRef } from '../../src/shared/cache/data-versions.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

async function bump(name: string): Promise<void> {
  await t.current.db.query(
    `INSERT INTO data_versions AS v (name, key, version) VALUES ($1, 0, 1)
       ON CONFLICT (name, key) DO UPDATE SET version = v.version + 1`,
    [name],
  );
}

describe('a page that depends on several versions', () => {
  it('is rendered again when any of them moves, and only then', async () => {
    const cache = new PageCache(new DataVersionReader(t.current.db));
    const depends: DataVersionRef[] = [{ name: 'histories' }, { name: 'exports' }];
    const seen: string[] = [];
    const get = () =>
      cache.page('both', depends, async (version) => {
        seen.push(version);
        return { body: version, records: 0 };
      });
    const first = await get();
    expect(seen).toEqual(['histories:0@0+exports:0@0']);
    expect((await get()).etag).toBe(first.etag);
    await bump('exports');
    const second = await get();
    await bump('histories');
    const third = await get();
    expect(seen).toEqual([
      'histories:0@0+exports:0@0',
      'histories:0@0+exports:0@1',
      'histories:0@1+exports:0@1',
    ]);
    expect(new Set([first.etag, second.etag, third.etag]).size).toBe(3);
    expect((await get()).cached).toBe(true);
  });
});
