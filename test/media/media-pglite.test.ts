import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/shared/db/db.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { createPgliteDb } from '../../src/shared/db/pglite-db.js';
import { DirectoryStorage } from '../../src/domain/media/directory-storage.js';
import { MediaLibrary } from '../../src/domain/media/media-library.js';
import { listMedia } from '../../src/domain/media/media-list.js';
import { BlockTemplates } from '../../src/domain/templates/block-templates.js';
import { templateHierarchy } from '../../src/domain/templates/template-hierarchy.js';
import { ThemeFiles } from '../../src/domain/templates/theme-files.js';
import { gradientJpeg } from './media-fixtures.js';

let db: Db;
let dir: string;

beforeAll(async () => {
  db = await createPgliteDb();
  await migrate(db);
  dir = await mkdtemp(path.join(tmpdir(), 'emutrack-media-pglite-'));
}, 120_000);
afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('media and templates on the embedded database (PGlite, no DATABASE_URL)', () => {
  it('uploads, makes sizes, lists by media type and mime type', async () => {
    const library = new MediaLibrary(db, new DirectoryStorage(dir), {
      maxUploadBytes: 10_000_000,
      maxPixels: 10_000_000,
      bigImageThreshold: 2560,
      quality: 82,
    });
    const item = await library.upload({
      body: Readable.from([await gradientJpeg(800, 600)]),
      fileName: 'pglite.jpg',
      author: 0,
    });
    const done = await library.makeSizes(item);
    expect(Object.keys(done.details.sizes).sort()).toEqual(['medium', 'medium_large', 'thumbnail']);
    const base = {
      statuses: ['inherit'],
      orderby: 'date' as const,
      order: 'desc' as const,
      limit: 10,
      offset: 0,
    };
    expect((await listMedia(db, { ...base, mediaTypes: ['image'] })).total).toBe(1);
    expect((await listMedia(db, { ...base, mimeTypes: ['image/png'] })).total).toBe(0);
    expect((await listMedia(db, { ...base, search: 'pglite' })).items[0]?.post.id).toBe(
      item.post.id,
    );
  });

  it('edits a theme template into a custom item and resolves the fallback chain', async () => {
    const templates = new BlockTemplates(db, new ThemeFiles());
    const single = (await templates.get('emutrack-docs//single'))!;
    expect(single.source).toBe('theme');
    const edited = await templates.update(
      single,
      { content: '<!-- wp:post-content /-->' },
      new Date(),
    );
    expect([edited.source, edited.origin]).toEqual(['custom', 'theme']);
    const resolved = await templates.resolve(templateHierarchy('single-post-hello'));
    expect(resolved).toMatchObject({ slug: 'single', source: 'custom', wpId: edited.wpId });
  });
});
