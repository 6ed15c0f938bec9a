/* eslint-disable @typescript-eslint/no-explicit-any -- client answers are JSON checked field by field */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import apiFetchModule, { type ApiFetch } from '@wordpress/api-fetch';
import sharp from 'sharp';
import WPAPI from 'wpapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { useChromium } from '../../helpers/browser.js';
import { gradientJpeg } from '../../media/media-fixtures.js';
import { useMediaSite, type SiteAccount } from './media-site.js';

// The package's types are read as CommonJS (no "type": "module"); at run time the default
// export is the function itself.
const apiFetch = ((apiFetchModule as unknown as { default?: ApiFetch }).default ??
  apiFetchModule) as unknown as ApiFetch;

/** Armed by a test: the next "medium" size fails once, as a request dying half-way would. */
let failNextMedium = false;
const sizeCalls: string[] = [];
const site = useMediaSite({
  listen: true,
  media: {
    beforeEachFile: (name) => {
      sizeCalls.push(name);
      if (name === 'medium' && failNextMedium) {
        failNextMedium = false;
        throw new Error('injected: the process died while making sizes');
      }
    },
  },
});
let author: SiteAccount;

beforeAll(async () => {
  author = await site.account('uploader', 'author');
  apiFetch.use(apiFetch.createRootURLMiddleware(`${site.url}/wp-json/`));
  apiFetch.use((options, next) =>
    next({ ...options, headers: { ...options.headers, Authorization: author.basic } }),
  );
  apiFetch.use(apiFetch.mediaUploadMiddleware);
});

async function attachmentIds(): Promise<number[]> {
  const r = await site.db.query<{ id: string }>(
    `SELECT id FROM site_posts WHERE type = 'attachment' ORDER BY id`,
  );
  return r.rows.map((x) => Number(x.id));
}

describe('WordPress clients against the site on loopback', () => {
  const chromium = useChromium();
  it('@wordpress/api-fetch uploads a file (FormData)', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob([await gradientJpeg(900, 600)], { type: 'image/jpeg' }),
      'fetch.jpg',
    );
    form.append('title', 'Uploaded by api-fetch');
    const item: any = await apiFetch({ path: '/wp/v2/media', method: 'POST', body: form });
    expect(item).toMatchObject({
      title: { raw: 'Uploaded by api-fetch' },
      mime_type: 'image/jpeg',
      media_details: { width: 900, height: 600 },
    });
    expect(item.media_details.sizes.medium).toMatchObject({ width: 300, height: 200 });
    const file = await fetch(item.media_details.sizes.medium.source_url);
    expect(file.status).toBe(200);
    const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([300, 200]);
  });

  it('api-fetch finishes an upload whose sizes failed: the 5xx carries the id, post-process completes it', async () => {
    const before = await attachmentIds();
    failNextMedium = true;
    sizeCalls.length = 0;
    const form = new FormData();
    form.append(
      'file',
      new Blob([await gradientJpeg(1200, 800)], { type: 'image/jpeg' }),
      'retry.jpg',
    );
    const item: any = await apiFetch({ path: '/wp/v2/media', method: 'POST', body: form });
    expect(failNextMedium).toBe(false);
    // medium failed in the upload request and was made by the post-process call.
    expect(sizeCalls.filter((n) => n === 'medium')).toHaveLength(2);
    expect(sizeCalls.filter((n) => n === 'thumbnail')).toHaveLength(1);
    expect(Object.keys(item.media_details.sizes).sort()).toEqual(
      ['full', 'large', 'medium', 'medium_large', 'thumbnail'].sort(),
    );
    expect(item.missing_image_sizes).toEqual([]);
    const after = await attachmentIds();
    expect(after).toEqual([...before, item.id]);
  });

  it('wpapi discovers the site through ?rest_route=/ and uploads multipart with Basic auth', async () => {
    const discovered = await WPAPI.discover(site.url);
    const wp = discovered.auth({ username: author.username, password: author.appPassword });
    const bytes = await gradientJpeg(500, 400);
    const item: any = await wp
      .media()
      // wpapi's types say string | File; in Node it takes a Buffer with a name (its documented use).
      .file(bytes as unknown as string, 'wpapi.jpg')
      .create({ title: 'From wpapi', alt_text: 'wpapi alt', caption: 'wpapi caption' });
    expect(item).toMatchObject({
      title: { raw: 'From wpapi' },
      alt_text: 'wpapi alt',
      caption: { raw: 'wpapi caption' },
      media_details: { width: 500, height: 400 },
    });
    const read: any = await wp.media().id(item.id);
    expect(read.source_url).toBe(item.source_url);
  });

  it('a page with an uploaded image shows it in Chromium', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob([await gradientJpeg(800, 500)], { type: 'image/jpeg' }),
      'shown.jpg',
    );
    const item: any = await apiFetch({ path: '/wp/v2/media', method: 'POST', body: form });
    const large = item.media_details.sizes.medium_large.source_url;
    const post: any = await apiFetch({
      path: '/wp/v2/posts',
      method: 'POST',
      data: {
        title: 'A page with a picture',
        status: 'publish',
        content: `<!-- wp:paragraph --><p>The picture below was uploaded through the REST API.</p><!-- /wp:paragraph -->\n<!-- wp:image {"id":${item.id}} --><figure class="wp-block-image"><img id="uploaded" src="${large}" alt="uploaded gradient"/></figure><!-- /wp:image -->`,
      },
    });
    const page = await (
      await chromium.browser()
    ).newPage({ viewport: { width: 1000, height: 900 } });
    try {
      const response = await page.goto(post.link);
      expect(response?.status()).toBe(200);
      const image = page.locator('img#uploaded');
      await image.waitFor();
      // These run in the page; the project's lib has no DOM types, so they are strings.
      await page.waitForFunction(
        'document.querySelector("img#uploaded") !== null && document.querySelector("img#uploaded").complete',
      );
      const natural = await page.evaluate(
        '(() => { const i = document.querySelector("img#uploaded"); return [i.naturalWidth, i.naturalHeight]; })()',
      );
      expect(natural).toEqual([768, 480]);
      const shot = path.join(tmpdir(), 'emutrack-media-page.png');
      await writeFile(shot, await page.screenshot({ fullPage: true }));
    } finally {
      await page.close();
    }
  }, 60_000);
});
