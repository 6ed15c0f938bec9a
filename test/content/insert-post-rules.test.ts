import { describe, expect, it } from 'vitest';
import {
  askedDateGmt,
  newPostFields,
  settlePostFields,
  slugAfterInsert,
  trashFields,
  untrashFields,
  writePublishes,
} from '../../src/domain/content/insert-post-rules.js';
import { InvalidSiteDateError } from '../../src/domain/content/site-dates.js';
import type { SitePost } from '../../src/domain/content/site-post.js';

const NOW = new Date('2026-11-26T12:00:00Z');
const LATER = new Date('2026-12-01T00:00:00Z');
const EARLIER = new Date('2026-01-01T00:00:00Z');

function stored(fields: Partial<SitePost> = {}): SitePost {
  return {
    id: 42,
    type: 'post',
    status: 'draft',
    author: 1,
    dateGmt: null,
    modifiedGmt: EARLIER,
    slug: '',
    title: 'Hello 世界',
    content: '',
    excerpt: '',
    password: '',
    parent: 0,
    menuOrder: 0,
    commentStatus: 'open',
    pingStatus: 'open',
    format: 'standard',
    sticky: false,
    template: '',
    featuredMedia: 0,
    meta: {},
    trashedFrom: null,
    isAutosave: false,
    extra: {},
    createdAt: EARLIER,
    ...fields,
  };
}

const can = { canPublish: true };

describe("wp_insert_post's rules", () => {
  it('schedules a publish dated later and publishes a future dated before now', () => {
    expect(
      settlePostFields(
        { status: 'publish', dateGmt: LATER, title: 'Hello 世界' },
        undefined,
        NOW,
        can,
      ),
    ).toEqual({
      status: 'future',
      dateGmt: LATER,
      title: 'Hello 世界',
      slug: 'hello-%e4%b8%96%e7%95%8c',
    });
    const due = stored({ status: 'future', dateGmt: LATER, slug: 'x' });
    expect(settlePostFields({ dateGmt: EARLIER }, due, NOW, can)).toEqual({
      status: 'publish',
      dateGmt: EARLIER,
    });
    expect(settlePostFields({ status: 'future' }, undefined, NOW, can).status).toBe('publish');
  });

  it('dates a public item without a date now and leaves a draft floating', () => {
    expect(settlePostFields({ status: 'private', title: 'a' }, undefined, NOW, can)).toEqual({
      status: 'private',
      title: 'a',
      dateGmt: NOW,
      slug: 'a',
    });
    expect(settlePostFields({ status: 'draft', title: 'a' }, undefined, NOW, can)).toEqual({
      status: 'draft',
      title: 'a',
    });
    // An update that does not touch the date leaves it out of the fields written.
    const dated = stored({ status: 'publish', dateGmt: EARLIER, slug: 'kept' });
    expect(settlePostFields({ title: 'b' }, dated, NOW, can)).toEqual({ title: 'b' });
  });

  it('gives a published item a slug from its title, else its id, and keeps a given one', () => {
    expect(settlePostFields({ status: 'publish', title: '' }, stored(), NOW, can).slug).toBe('42');
    expect(settlePostFields({ status: 'publish', slug: 'mine' }, stored(), NOW, can).slug).toBe(
      'mine',
    );
    expect(settlePostFields({ status: 'publish', title: '' }, undefined, NOW, can).slug).toBe('');
    expect(slugAfterInsert(stored({ status: 'publish' }))).toBe('42');
    expect(slugAfterInsert(stored({ status: 'draft' }))).toBeUndefined();
    expect(slugAfterInsert(stored({ status: 'publish', slug: 's' }))).toBeUndefined();
  });

  it('drops the slug of a new pending item when its author may not publish', () => {
    const f = { status: 'pending', slug: 'chosen' };
    expect(settlePostFields(f, undefined, NOW, { canPublish: false }).slug).toBe('');
    expect(settlePostFields(f, undefined, NOW, can).slug).toBe('chosen');
    expect(settlePostFields(f, stored(), NOW, { canPublish: false }).slug).toBe('chosen');
  });

  it('asks the publish capability for a public status not already the item’s', () => {
    expect(writePublishes({ status: 'publish' }, undefined)).toBe(true);
    expect(writePublishes({ status: 'pending' }, undefined)).toBe(false);
    expect(writePublishes({ title: 'x' }, stored({ status: 'publish' }))).toBe(false);
    expect(writePublishes({ status: 'publish' }, stored({ status: 'publish' }))).toBe(false);
    expect(writePublishes({ status: 'private' }, stored({ status: 'publish' }))).toBe(true);
    expect(writePublishes({ status: 'publish' }, stored({ status: 'draft' }))).toBe(true);
  });

  it("gives a new item its date as modified date and its type's comment defaults", () => {
    expect(newPostFields({ dateGmt: EARLIER }, 'post', NOW)).toEqual({
      type: 'post',
      dateGmt: EARLIER,
      modifiedGmt: EARLIER,
      commentStatus: 'open',
      pingStatus: 'open',
    });
    expect(newPostFields({ pingStatus: 'open' }, 'page', NOW)).toMatchObject({
      modifiedGmt: NOW,
      commentStatus: 'closed',
      pingStatus: 'open',
    });
  });

  it('trashes with a __trashed slug and restores the desired one', () => {
    const post = stored({ status: 'publish', slug: 'name', extra: { k: 1 } });
    const trash = trashFields(post);
    expect(trash).toEqual({
      status: 'trash',
      trashedFrom: 'publish',
      slug: 'name__trashed',
      extra: { k: 1, desiredSlug: 'name' },
    });
    expect(trashFields(stored({ slug: '' }))).toEqual({ status: 'trash', trashedFrom: 'draft' });
    const trashed = stored({ ...post, ...trash });
    expect(untrashFields({ status: 'draft' }, trashed)).toEqual({
      status: 'draft',
      slug: 'name',
      extra: { k: 1 },
    });
    expect(untrashFields({ status: 'draft', slug: 'other' }, trashed).slug).toBe('other');
    // Without a status change it stays in the trash: nothing restored.
    expect(untrashFields({ title: 't' }, trashed)).toEqual({ title: 't' });
  });

  it('takes date_gmt over date (the site is UTC+8), null to float again, empty as not given', () => {
    expect(askedDateGmt('2026-11-26T20:00:00', undefined)).toEqual(NOW);
    expect(askedDateGmt('2000-01-01T00:00:00', '2026-11-26T12:00:00')).toEqual(NOW);
    expect(askedDateGmt('2026-11-26T20:00:00', '')).toEqual(NOW);
    expect(askedDateGmt(null, undefined)).toBeNull();
    expect(askedDateGmt(undefined, null)).toBeNull();
    expect(askedDateGmt('', undefined)).toBeUndefined();
    expect(askedDateGmt(undefined, undefined)).toBeUndefined();
    expect(() => askedDateGmt('2026-02-30T00:00:00', undefined)).toThrow(InvalidSiteDateError);
  });
});
