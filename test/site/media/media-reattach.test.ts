import { beforeAll, describe, expect, it } from 'vitest';
import { insertPost } from '../../../src/domain/content/posts-store.js';
import { solidPng } from '../../media/media-fixtures.js';
import { useMediaSite, type SiteAccount } from './media-site.js';

const site = useMediaSite();
let author: SiteAccount;
let editor: SiteAccount;
let editorsPost: number;
let authorsPost: number;

beforeAll(async () => {
  author = await site.account('reattach-author', 'author');
  editor = await site.account('reattach-editor', 'editor');
  const at = new Date('2026-09-01T00:00:00Z');
  const make = async (owner: SiteAccount, slug: string) =>
    (
      await insertPost(site.db, {
        type: 'post',
        status: 'publish',
        author: owner.id,
        title: slug,
        content: '',
        slug,
        dateGmt: at,
        modifiedGmt: at,
      })
    ).id;
  editorsPost = await make(editor, 'editors-post');
  authorsPost = await make(author, 'authors-post');
});

async function upload(auth: SiteAccount, query = '') {
  const res = await site.app.inject({
    method: 'POST',
    url: `/wp-json/wp/v2/media${query}`,
    headers: {
      authorization: auth.basic,
      'content-type': 'image/png',
      'content-disposition': 'attachment; filename="picture.png"',
    },
    payload: await solidPng(8, 8),
  });
  return { status: res.statusCode, body: res.json() };
}

const update = (id: number, auth: SiteAccount, payload: object) =>
  site.call('POST', `/wp-json/wp/v2/media/${id}`, { auth, body: payload });

/**
 * The attack: an author, refused when uploading to another user's post (`?post=N`), uploads to
 * nothing and then re-attaches the item with `POST /wp/v2/media/{id}` `{"post": N}`. Attaching
 * by an update is refused as attaching by an upload is: the caller must be able to edit the post.
 */
describe('media re-attached to a post the caller may not edit', () => {
  it('an author attaching by an upload to an editor’s post is refused (403 rest_cannot_edit)', async () => {
    const res = await upload(author, `?post=${editorsPost}`);
    expect([res.status, res.body.code]).toEqual([403, 'rest_cannot_edit']);
  });

  it('an author re-attaching own media to an editor’s post by an update is refused the same way, and nothing changes', async () => {
    const made = await upload(author);
    expect(made.status).toBe(201);
    const res = await update(made.body.id, author, { post: editorsPost });
    expect([res.status, (res.body as { code: string }).code]).toEqual([403, 'rest_cannot_edit']);
    const after = await site.call('GET', `/wp-json/wp/v2/media/${made.body.id}?context=edit`, {
      auth: author,
    });
    expect((after.body as { post: number | null }).post).toBeNull();
  });

  it('attaching to one’s own post, detaching, and an editor attaching to anyone’s post still work', async () => {
    const made = await upload(author);
    const own = await update(made.body.id, author, { post: authorsPost });
    expect([own.status, (own.body as { post: number }).post]).toEqual([200, authorsPost]);
    const detached = await update(made.body.id, author, { post: 0 });
    expect([detached.status, (detached.body as { post: null }).post]).toEqual([200, null]);
    const moved = await update(made.body.id, editor, { post: editorsPost });
    expect([moved.status, (moved.body as { post: number }).post]).toEqual([200, editorsPost]);
    // Other fields of an update without `post` are not checked against the parent.
    const renamed = await update(made.body.id, editor, { title: 'Renamed' });
    expect(renamed.status).toBe(200);
  });
});
