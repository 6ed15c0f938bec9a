import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

/**
 * OPTIONS schemas and argument lists as WordPress 6.1 shows them: media, templates,
 * categories.
 */
describe('OPTIONS schemas and arguments as WordPress 6.1 has them', () => {
  const site = useSite();
  let admin: SiteAccountFixture;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
  });

  it("gives media the posts' schema links but publish, and no guid or description in embeds", async () => {
    const r = await site.call('OPTIONS', '/wp-json/wp/v2/media');
    expect(r.status).toBe(200);
    const rels = (r.body.schema.links as Array<{ rel: string }>).map((l) => l.rel).sort();
    expect(rels).toEqual([
      'https://api.w.org/action-assign-author',
      'https://api.w.org/action-unfiltered-html',
    ]);
    const props = r.body.schema.properties;
    expect(props.guid.context).toEqual(['view', 'edit']);
    expect(props.description.context).toEqual(['view', 'edit']);
    expect(props.caption.context).toEqual(['view', 'edit', 'embed']);
    // WordPress 6.1's attachments controller lets nothing through /batch/v1 (allow_batch false).
    expect(r.body.endpoints[0].allow_batch).toBeUndefined();
  });

  it("types the templates' fields as WordPress does", async () => {
    const r = await site.call('OPTIONS', '/wp-json/wp/v2/templates', { auth: admin });
    const props = r.body.schema.properties;
    expect([props.has_theme_file.type, props.is_custom.type]).toEqual(['bool', 'bool']);
    expect([props.origin.type, props.wp_id.type]).toEqual(['string', 'integer']);
  });

  it('takes an offset for tags but not for categories, which ignore one', async () => {
    const categories = await site.call('OPTIONS', '/wp-json/wp/v2/categories');
    expect(Object.keys(categories.body.endpoints[0].args)).not.toContain('offset');
    const tags = await site.call('OPTIONS', '/wp-json/wp/v2/tags');
    expect(Object.keys(tags.body.endpoints[0].args)).toEqual([
      'context',
      'page',
      'per_page',
      'search',
      'exclude',
      'include',
      'offset',
      'order',
      'orderby',
      'hide_empty',
      'post',
      'slug',
    ]);
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      await site.call('POST', '/wp-json/wp/v2/categories', { auth: admin, body: { name } });
    }
    const all = await site.call('GET', '/wp-json/wp/v2/categories');
    const offset = await site.call('GET', '/wp-json/wp/v2/categories?offset=2');
    expect(offset.status).toBe(200);
    expect(offset.body.map((c: { id: number }) => c.id)).toEqual(
      all.body.map((c: { id: number }) => c.id),
    );
    expect(offset.headers['x-wp-total']).toBe(all.headers['x-wp-total']);
  });
});
