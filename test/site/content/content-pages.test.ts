import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';

/** The site's own pages keep a protected post's text to those who give its password. */
describe("the site's pages: password-protected posts", () => {
  const site = useSite();
  let editor: SiteAccountFixture;

  beforeAll(async () => {
    editor = await site.account('editor', 'editor');
  });

  it("the front page's excerpt does not show a protected post's text", async () => {
    for (const body of [
      { title: 'vault one', content: 'the vault code is xyzzy-4711', password: 'pw' },
      { title: 'vault two', content: 'more', excerpt: 'xyzzy-excerpt', password: 'pw' },
    ]) {
      const r = await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: editor,
        body: { ...body, status: 'publish' },
      });
      expect(r.status).toBe(201);
      const single = await site.call('GET', `/?p=${r.body.id}`);
      expect(single.status).toBe(200);
      expect(single.body).not.toContain('xyzzy');
    }
    const home = await site.call('GET', '/');
    expect(home.status).toBe(200);
    expect(home.body).toContain('vault one');
    expect(home.body).not.toContain('xyzzy');
  });
});
