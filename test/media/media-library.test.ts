import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DirectoryStorage } from '../../src/domain/media/directory-storage.js';
import { MediaError } from '../../src/domain/media/media-error.js';
import { MediaLibrary, type MediaLibraryOptions } from '../../src/domain/media/media-library.js';
import { useTestDatabase } from '../helpers/test-db.js';
import {
  gradientJpeg,
  hugePngHeader,
  listFiles,
  orientedJpeg,
  solidPng,
} from './media-fixtures.js';

const database = useTestDatabase();
const NOW = new Date('2026-11-22T20:00:00Z'); // 2026-11-23 04:00 in Shanghai: folder 2026/11
let root: string;
let library: MediaLibrary;

const OPTIONS: MediaLibraryOptions = {
  maxUploadBytes: 5 * 1024 * 1024,
  maxPixels: 50_000_000,
  bigImageThreshold: 2560,
  quality: 82,
};

async function attachmentCount(): Promise<number> {
  const r = await database.current.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM site_posts WHERE type = 'attachment'`,
  );
  return Number(r.rows[0]!.n);
}

function upload(bytes: Buffer | Readable, fileName: string, extra: { md5?: string } = {}) {
  return library.upload({
    body: bytes instanceof Readable ? bytes : Readable.from([bytes]),
    fileName,
    md5: extra.md5,
    author: 0,
    now: NOW,
  });
}

async function refusal(p: Promise<unknown>): Promise<MediaError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MediaError);
  return err as MediaError;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'emutrack-media-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  await database.current.db.query(`DELETE FROM site_posts WHERE type = 'attachment'`);
  const dir = await mkdtemp(path.join(root, 'u-'));
  library = new MediaLibrary(database.current.db, new DirectoryStorage(dir), OPTIONS);
});

const storageRoot = () => (library.storage as DirectoryStorage).root;

describe('uploads', () => {
  it('stores a JPEG under YYYY/MM in the site time zone and records its facts', async () => {
    const bytes = await gradientJpeg(640, 480);
    const item = await upload(bytes, 'My Photo (1).JPG', {
      md5: createHash('md5').update(bytes).digest('hex'),
    });
    expect(item.mimeType).toBe('image/jpeg');
    expect(item.originalKey).toBe('2026/11/My-Photo-1.jpg');
    expect(item.post.title).toBe('My Photo (1)');
    expect(item.post.slug).toBe('my-photo-1');
    expect(item.post.status).toBe('inherit');
    expect(item.details).toMatchObject({ width: 640, height: 480, filesize: bytes.length });
    expect(await listFiles(storageRoot())).toEqual(['2026/11/My-Photo-1.jpg']);
  });

  it('makes every size, checked by reading the files back, and making them twice changes nothing', async () => {
    const item = await upload(await gradientJpeg(3000, 2000), 'big.jpg');
    const done = await library.makeSizes(item);
    expect(done.details.file).toBe('2026/11/big-scaled.jpg');
    expect(done.details.original_image).toBe('big.jpg');
    expect([done.details.width, done.details.height]).toEqual([2560, 1707]);
    const expected: Record<string, [number, number]> = {
      thumbnail: [150, 150],
      medium: [300, 200],
      medium_large: [768, 512],
      large: [1024, 683],
    };
    expect(Object.keys(done.details.sizes).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, [w, h]] of Object.entries(expected)) {
      const size = done.details.sizes[name]!;
      expect(size.file).toBe(`big-${w}x${h}.jpg`);
      const meta = await sharp(path.join(storageRoot(), '2026/11', size.file)).metadata();
      expect([meta.width, meta.height, meta.format]).toEqual([w, h, 'jpeg']);
      expect(size.filesize).toBeGreaterThan(0);
    }
    const scaled = await sharp(path.join(storageRoot(), done.details.file)).metadata();
    expect([scaled.width, scaled.height]).toEqual([2560, 1707]);

    const filesBefore = await listFiles(storageRoot());
    const again = await library.makeSizes((await library.get(item.post.id))!);
    expect(again.details).toEqual(done.details);
    expect(await listFiles(storageRoot())).toEqual(filesBefore);
    expect(filesBefore).toHaveLength(6);
  });

  it('applies EXIF orientation: a sideways photo is shown upright, in a "-rotated" copy', async () => {
    const item = await upload(await orientedJpeg(200, 100), 'side.jpg');
    expect([item.details.width, item.details.height]).toEqual([100, 200]);
    const done = await library.makeSizes(item);
    expect(done.details.file).toBe('2026/11/side-rotated.jpg');
    const rotated = await sharp(path.join(storageRoot(), done.details.file)).metadata();
    expect([rotated.width, rotated.height, rotated.orientation ?? 1]).toEqual([100, 200, 1]);
    expect(done.details.sizes.thumbnail).toMatchObject({ width: 100, height: 150 });
    expect(done.details.sizes.medium).toBeUndefined();
  });

  it('resumes sizes after a failure part-way (the post-process retry)', async () => {
    let failOnce = true;
    const flaky = new MediaLibrary(database.current.db, library.storage, {
      ...OPTIONS,
      beforeEachFile: (name) => {
        if (name === 'medium' && failOnce) {
          failOnce = false;
          throw new Error('injected');
        }
      },
    });
    const item = await flaky.upload({
      body: Readable.from([await gradientJpeg(1200, 900)]),
      fileName: 'resume.jpg',
      author: 0,
      now: NOW,
    });
    await expect(flaky.makeSizes(item)).rejects.toThrow('injected');
    const partial = (await flaky.get(item.post.id))!;
    expect(Object.keys(partial.details.sizes)).toEqual(['thumbnail']);
    const done = await flaky.makeSizes(partial);
    expect(Object.keys(done.details.sizes).sort()).toEqual(
      ['large', 'medium', 'medium_large', 'thumbnail'].sort(),
    );
    expect(await listFiles(storageRoot())).toHaveLength(5);
  });

  it('gives concurrent uploads of one name distinct files and slugs', async () => {
    const bytes = await solidPng(40, 30);
    const items = await Promise.all(Array.from({ length: 12 }, () => upload(bytes, 'same.png')));
    const keys = items.map((i) => i.originalKey).sort();
    expect(new Set(keys).size).toBe(12);
    expect(keys).toContain('2026/11/same.png');
    expect(new Set(items.map((i) => i.post.slug)).size).toBe(12);
    expect(await listFiles(storageRoot())).toEqual(keys);
  });

  it('refuses without leaving a file or a row: each error', async () => {
    const cases: [string, () => Promise<unknown>, string, number][] = [
      ['empty body', () => upload(Buffer.alloc(0), 'a.png'), 'rest_upload_no_data', 400],
      [
        'hash mismatch',
        async () => upload(await solidPng(10, 10), 'a.png', { md5: 'f'.repeat(32) }),
        'rest_upload_hash_mismatch',
        412,
      ],
      [
        'too big',
        () => upload(Buffer.alloc(OPTIONS.maxUploadBytes + 1, 1), 'a.txt'),
        'rest_upload_file_too_big',
        413,
      ],
      [
        'type not allowed (by its bytes)',
        () => upload(Buffer.from('<html><script>alert(1)</script></html>'), 'page.html'),
        'rest_upload_invalid_type',
        400,
      ],
      [
        'an executable named .jpg',
        () => upload(Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]), 'x.jpg'),
        'rest_upload_invalid_type',
        400,
      ],
      [
        'a PNG named .jpg',
        async () => upload(await solidPng(10, 10), 'photo.jpg'),
        'rest_upload_invalid_type',
        400,
      ],
      [
        'a truncated JPEG',
        async () => {
          const b = await gradientJpeg(400, 300);
          return upload(b.subarray(0, Math.floor(b.length * 0.6)), 'cut.jpg');
        },
        'rest_upload_invalid_image',
        400,
      ],
      [
        'huge dimensions (a decompression bomb)',
        () => upload(hugePngHeader(100_000, 100_000), 'bomb.png'),
        'rest_upload_image_too_large',
        400,
      ],
    ];
    for (const [what, run, code, status] of cases) {
      const err = await refusal(run());
      expect({ what, code: err.code, status: err.status }).toEqual({ what, code, status });
    }
    expect(await listFiles(storageRoot())).toEqual([]);
    expect(await attachmentCount()).toBe(0);
  });

  it('leaves nothing when the body breaks off half-way', async () => {
    const bytes = await gradientJpeg(800, 600);
    const body = new Readable({ read() {} });
    body.push(bytes.subarray(0, 1000));
    setImmediate(() => body.destroy(new Error('client went away')));
    await expect(upload(body, 'half.jpg')).rejects.toThrow('client went away');
    expect(await listFiles(storageRoot())).toEqual([]);
    expect(await attachmentCount()).toBe(0);
  });

  it('accepts UTF-8 text by extension and content, and names a file without extension by its bytes', async () => {
    const text = await upload(Buffer.from('车次,日期\nG1,2026-11-22\n'), 'list.csv');
    expect(text.mimeType).toBe('text/plain');
    expect(text.mediaType).toBe('text');
    const noExt = await upload(await solidPng(8, 8), 'picture');
    expect(noExt.originalKey).toBe('2026/11/picture.png');
  });

  it('deletes an item with all its files', async () => {
    const item = await library.makeSizes(await upload(await gradientJpeg(3000, 2000), 'gone.jpg'));
    expect((await listFiles(storageRoot())).length).toBe(6);
    await library.deleteForever(item);
    expect(await listFiles(storageRoot())).toEqual([]);
    expect(await library.get(item.post.id)).toBeUndefined();
  });

  it('edits into a new "-edited" item with parent_image and its own sizes', async () => {
    const item = await upload(await gradientJpeg(640, 480), 'edit-me.jpg');
    const copy = await library.editCopy(
      item,
      [{ type: 'crop', args: { left: 50, top: 10, width: 10, height: 5 } }],
      { author: 0, now: NOW },
    );
    expect(copy.post.id).not.toBe(item.post.id);
    expect(copy.originalKey).toBe('2026/11/edit-me-edited.jpg');
    expect(copy.details).toMatchObject({
      width: 64,
      height: 24,
      parent_image: { attachment_id: item.post.id, file: '2026/11/edit-me.jpg' },
    });
    const done = await library.makeSizes(copy);
    expect(done.details.sizes).toEqual({});
    const meta = await sharp(path.join(storageRoot(), copy.originalKey)).metadata();
    expect([meta.width, meta.height]).toEqual([64, 24]);
  });
});
