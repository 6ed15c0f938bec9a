import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOembedModule } from '../../../src/http/site/oembed/oembed-module.js';
import { answerJson, startLocalProvider } from '../../oembed/local-provider.js';
import { useMediaSite, type SiteAccount } from '../media/media-site.js';

// The provider runs on loopback and is listed by its address; another local server is not listed.
const provider = await startLocalProvider(
  answerJson({ version: '1.0', type: 'video', title: 'Listed' }),
);
const unlisted = await startLocalProvider(answerJson({ version: '1.0', type: 'rich' }));
afterAll(async () => {
  await provider.close();
  await unlisted.close();
});

const site = useMediaSite({
  env: { OEMBED_PROVIDERS: `https://video.test/* ${provider.url}/oembed` },
  extraModules: () => [createOembedModule()],
});
let admin: SiteAccount;
let editor: SiteAccount;
let subscriber: SiteAccount;
let postLink: string;
let postId: number;
/** title.rendered of the post, as the REST API shows it. */
let postTitle: string;

const call = (method: string, url: string, o: { auth?: SiteAccount; payload?: object } = {}) =>
  site.call(method, url, { auth: o.auth, body: o.payload });

beforeAll(async () => {
  admin = await site.account('admin1', 'administrator');
  editor = await site.account('editor1', 'editor');
  subscriber = await site.account('reader1', 'subscriber');
  const post = await call('POST', '/wp-json/wp/v2/posts', {
    auth: admin,
    payload: { title: 'Trains & <stations>', content: '<p>About trains.</p>', status: 'publish' },
  });
  expect(post.status).toBe(201);
  postLink = post.body.link;
  postId = post.body.id;
  postTitle = post.body.title.rendered;
});

const embedUrl = (url: string, extra = '') =>
  `/wp-json/oembed/1.0/embed?url=${encodeURIComponent(url)}${extra}`;

describe('GET /oembed/1.0/embed', () => {
  it('answers JSON for a published post: rich, version 1.0, an iframe of the embed view', async () => {
    const res = await call('GET', embedUrl(postLink));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      version: '1.0',
      type: 'rich',
      title: postTitle,
      author_name: 'admin1',
      provider_name: 'emutrack 文档',
      provider_url: 'http://site.test',
      width: 600,
      height: 338,
    });
    expect(res.body.html).toContain(`src="http://site.test/embed/${postId}/"`);
    expect(res.body.html).toContain('<iframe sandbox="allow-scripts"');
    const view = await call('GET', `/embed/${postId}/`);
    expect(view.status).toBe(200);
    expect(view.body).toContain('Trains &amp; &lt;stations&gt;');
  });

  it('keeps width within maxwidth', async () => {
    const narrow = await call('GET', embedUrl(postLink, '&maxwidth=320'));
    expect([narrow.body.width, narrow.body.height]).toEqual([320, 200]);
    const wide = await call('GET', embedUrl(postLink, '&maxwidth=2000'));
    expect(wide.body.width).toBe(600);
    const tiny = await call('GET', embedUrl(postLink, '&maxwidth=120'));
    expect(tiny.body.width).toBeLessThanOrEqual(120);
  });

  it('answers XML with format=xml, also through ?rest_route=', async () => {
    for (const path of [
      embedUrl(postLink, '&format=xml'),
      `/?rest_route=/oembed/1.0/embed&format=xml&url=${encodeURIComponent(postLink)}`,
    ]) {
      const res = await call('GET', path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/xml; charset=UTF-8');
      expect(res.body).toMatch(/^<\?xml version="1\.0"\?>\n<oembed>/);
      expect(res.body).toContain('<type>rich</type>');
      expect(res.body).toContain('<version>1.0</version>');
      expect(res.body).toContain('<width>600</width>');
      expect(res.body).toContain('&lt;iframe');
    }
  });

  it('finds posts by ?p= too, and refuses unknown or foreign URLs with 404 oembed_invalid_url', async () => {
    const byId = await call('GET', embedUrl(`http://site.test/?p=${postId}`));
    expect(byId.status).toBe(200);
    for (const url of [
      'http://elsewhere.test/2026/01/01/x/',
      `${postLink}nope/`,
      postLink.replace(/\/\d{4}\//, '/1999/'),
      'http://site.test/?p=999999',
    ]) {
      const res = await call('GET', embedUrl(url));
      expect({ url, status: res.status, code: res.body.code }).toEqual({
        url,
        status: 404,
        code: 'oembed_invalid_url',
      });
    }
    const missing = await call('GET', '/wp-json/oembed/1.0/embed');
    expect([missing.status, missing.body.code]).toEqual([400, 'rest_missing_callback_param']);
  });

  it('drafts are not embeddable', async () => {
    const draft = await call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      payload: { title: 'Draft', status: 'draft' },
    });
    const res = await call('GET', embedUrl(`http://site.test/?p=${draft.body.id}`));
    expect(res.status).toBe(404);
  });

  it('the post page advertises its oEmbed endpoints', async () => {
    const page = await call('GET', new URL(postLink).pathname);
    expect(page.status).toBe(200);
    const json = `http://site.test/wp-json/oembed/1.0/embed?url=${encodeURIComponent(postLink)}`;
    expect(page.body).toContain(
      `<link rel="alternate" title="oEmbed (JSON)" type="application/json+oembed" href="${json}" />`,
    );
    expect(page.body).toContain('type="text/xml+oembed"');
  });
});

describe('GET /oembed/1.0/proxy', () => {
  it('fetches from the listed provider for editors', async () => {
    const res = await call(
      'GET',
      `/wp-json/oembed/1.0/proxy?url=${encodeURIComponent('https://video.test/v/1')}&maxwidth=400`,
      {
        auth: editor,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'video',
      title: 'Listed',
      asked_url: 'https://video.test/v/1',
      maxwidth: '400',
    });
  });

  it('is 403 rest_forbidden for subscribers and 401 for anonymous callers', async () => {
    const url = `/wp-json/oembed/1.0/proxy?url=${encodeURIComponent('https://video.test/v/1')}`;
    const sub = await call('GET', url, { auth: subscriber });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_forbidden']);
    const anon = await call('GET', url);
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_forbidden']);
  });

  it('never asks an address off the list', async () => {
    const before = unlisted.requests.length;
    const res = await call(
      'GET',
      `/wp-json/oembed/1.0/proxy?url=${encodeURIComponent(`${unlisted.url}/oembed`)}`,
      {
        auth: editor,
      },
    );
    expect([res.status, res.body.code]).toEqual([404, 'oembed_invalid_url']);
    expect(unlisted.requests.length).toBe(before);
  });
});
