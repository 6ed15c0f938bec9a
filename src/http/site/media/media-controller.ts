import { getPost } from '../../../domain/content/posts-store.js';
import type { SiteUser } from '../../../domain/content/site-user.js';
import { hasCap } from '../../../domain/content/site-user.js';
import { modifiersFromLegacy, type ImageModifier } from '../../../domain/media/image-edit.js';
import type { MediaItem } from '../../../domain/media/media-item.js';
import { isResizable, type MediaLibrary } from '../../../domain/media/media-library.js';
import { listMedia, type MediaOrderBy } from '../../../domain/media/media-list.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { RestResponse } from '../rest/rest-response.js';
import { CREATABLE } from '../rest/route-registry.js';
import { RestController } from '../rest/rest-controller.js';
import type { SiteKit } from '../site-kit.js';
import {
  contextArg,
  denied,
  ID_LIST,
  PAGE_ARG,
  perPageArg,
  type Context,
} from '../rest/rest-helpers.js';
import { POST_ORDERBY } from '../content/post-schema.js';
import { mediaFieldsOf, restErrorOf } from './media-fields.js';
import { MediaPresenter } from './media-presenter.js';
import { MEDIA_SCHEMA, MEDIA_TYPE_FILTERS, MEDIA_WRITE_ARGS } from './media-schema.js';
import { readUploadBody } from './upload-body.js';

const ID = '(?P<id>[\\d]+)';

/** edit_post, delete_post: `<verb>_posts` on one's own item, `<verb>_others_posts` on another's. */
function mayChange(user: SiteUser | null, item: MediaItem, verb: 'edit' | 'delete'): boolean {
  if (!user) return false;
  return hasCap(user, user.id === item.post.author ? `${verb}_posts` : `${verb}_others_posts`);
}

function canRead(user: SiteUser | null, item: MediaItem): boolean {
  if (item.post.status === 'inherit' || item.post.status === 'publish') return true;
  return mayChange(user, item, 'edit') || hasCap(user, 'read_private_posts');
}

const MODIFIER_ARG: ArgSchema = {
  type: 'object',
  required: ['type', 'args'],
  oneOf: [
    {
      title: 'Flip',
      properties: {
        type: { type: 'string', enum: ['flip'] },
        args: {
          type: 'object',
          required: ['flip'],
          properties: {
            flip: {
              type: 'object',
              required: ['horizontal', 'vertical'],
              properties: { horizontal: { type: 'boolean' }, vertical: { type: 'boolean' } },
            },
          },
        },
      },
    },
    {
      title: 'Rotation',
      properties: {
        type: { type: 'string', enum: ['rotate'] },
        args: { type: 'object', required: ['angle'], properties: { angle: { type: 'number' } } },
      },
    },
    {
      title: 'Crop',
      properties: {
        type: { type: 'string', enum: ['crop'] },
        args: {
          type: 'object',
          required: ['left', 'top', 'width', 'height'],
          properties: {
            left: { type: 'number' },
            top: { type: 'number' },
            width: { type: 'number' },
            height: { type: 'number' },
          },
        },
      },
    },
  ],
};

const PERCENT: ArgSchema = { type: 'number', minimum: 0, maximum: 100 };

/** WP_REST_Attachments_Controller: /wp/v2/media, its items, post-process and edit. */
export class MediaController extends RestController {
  readonly schema = MEDIA_SCHEMA;
  readonly presenter: MediaPresenter;

  constructor(
    kit: SiteKit,
    private readonly library: MediaLibrary,
  ) {
    super(kit);
    this.presenter = new MediaPresenter(kit.urls);
  }

  register(): void {
    this.resourceRoutes('/media', {
      id: { type: 'integer' },
      // WordPress's attachments controller sets $allow_batch false: /batch/v1 refuses media.
      allowBatch: false,
      list: { callback: (r) => this.list(r), args: this.listArgs() },
      create: {
        callback: (r) => this.create(r),
        permission: (r) => this.createPermission(r),
        args: MEDIA_WRITE_ARGS,
      },
      read: { callback: (r) => this.read(r) },
      update: { callback: (r) => this.update(r), args: MEDIA_WRITE_ARGS },
      remove: { callback: (r) => this.remove(r) },
    });
    // No schema for OPTIONS: WordPress registers these two without one.
    this.route(
      `/media/${ID}/post-process`,
      {
        methods: CREATABLE,
        callback: (r) => this.postProcess(r),
        args: {
          id: { type: 'integer' },
          action: { type: 'string', enum: ['create-image-subsizes'], required: true },
        },
      },
      { schema: null },
    );
    this.route(
      `/media/${ID}/edit`,
      {
        methods: CREATABLE,
        callback: (r) => this.edit(r),
        args: {
          id: { type: 'integer' },
          src: { type: 'string', format: 'uri', required: true },
          modifiers: { type: 'array', minItems: 1, items: MODIFIER_ARG },
          rotation: {
            type: 'integer',
            minimum: 0,
            exclusiveMinimum: true,
            maximum: 360,
            exclusiveMaximum: true,
          },
          x: PERCENT,
          y: PERCENT,
          width: PERCENT,
          height: PERCENT,
          caption: MEDIA_WRITE_ARGS.caption!,
          description: MEDIA_WRITE_ARGS.description!,
          title: MEDIA_WRITE_ARGS.title!,
          post: MEDIA_WRITE_ARGS.post!,
          alt_text: MEDIA_WRITE_ARGS.alt_text!,
        },
      },
      { schema: null },
    );
  }

  private listArgs(): Record<string, ArgSchema> {
    const date: ArgSchema = { type: 'string', format: 'date-time' };
    return {
      context: contextArg(),
      page: PAGE_ARG,
      per_page: perPageArg(10),
      search: { type: 'string' },
      after: date,
      before: date,
      modified_after: date,
      modified_before: date,
      author: ID_LIST,
      author_exclude: ID_LIST,
      exclude: ID_LIST,
      include: ID_LIST,
      offset: { type: 'integer' },
      order: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
      orderby: {
        type: 'string',
        default: 'date',
        enum: [...POST_ORDERBY],
      },
      parent: ID_LIST,
      parent_exclude: ID_LIST,
      slug: { type: 'array', items: { type: 'string' } },
      status: {
        type: 'array',
        items: { type: 'string', enum: ['inherit', 'private', 'trash'] },
        default: ['inherit'],
      },
      media_type: { type: 'array', items: { type: 'string', enum: [...MEDIA_TYPE_FILTERS] } },
      mime_type: { type: 'array', items: { type: 'string' } },
    };
  }

  private async item(request: RestRequest): Promise<MediaItem> {
    const item = await this.library.get(Number(request.get('id')));
    if (!item) throw new RestError('rest_post_invalid_id', 'Invalid post ID.', 404);
    return item;
  }

  private async list(request: RestRequest): Promise<RestResponse> {
    const p = request.params;
    const context = p.context as Context;
    const statuses = (p.status as string[]) ?? ['inherit'];
    if (statuses.some((s) => s !== 'inherit') && !request.can('edit_posts')) {
      throw denied(request, 'rest_invalid_param', 'Status is forbidden.');
    }
    if (context === 'edit' && !request.can('edit_posts')) {
      throw denied(
        request,
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit posts in this post type.',
      );
    }
    const perPage = Number(p.per_page);
    const page = Number(p.page);
    const date = (v: unknown) => (typeof v === 'string' ? new Date(v) : undefined);
    const { total, items } = await listMedia(this.kit.db, {
      statuses,
      mediaTypes: p.media_type as string[] | undefined,
      mimeTypes: p.mime_type as string[] | undefined,
      parents: p.parent as number[],
      parentExclude: p.parent_exclude as number[],
      search: p.search as string | undefined,
      after: date(p.after),
      before: date(p.before),
      modifiedAfter: date(p.modified_after),
      modifiedBefore: date(p.modified_before),
      authors: p.author as number[],
      authorExclude: p.author_exclude as number[],
      include: p.include as number[],
      exclude: p.exclude as number[],
      slugs: p.slug as string[] | undefined,
      orderby: p.orderby as MediaOrderBy,
      order: p.order as 'asc' | 'desc',
      limit: perPage,
      offset: p.offset !== undefined ? Number(p.offset) : (page - 1) * perPage,
    });
    const visible = items.filter((i) => canRead(request.user, i));
    return this.collectionResponse(
      request,
      visible.map((i) => this.presenter.prepare(i, context)),
      total,
      perPage,
    );
  }

  private async createPermission(request: RestRequest): Promise<void> {
    if (!request.can('upload_files')) {
      throw denied(
        request,
        'rest_cannot_create',
        'Sorry, you are not allowed to upload media on this site.',
      );
    }
    await this.checkParent(request, 'Sorry, you are not allowed to upload media to this post.');
  }

  /**
   * Attaching media to a post (`post`, on upload or on update) needs the right to edit that
   * post. WordPress checks it on upload only; an update attaching to another's post is refused
   * here too, or an author refused the upload would upload unattached and attach by an update.
   */
  private async checkParent(request: RestRequest, message: string): Promise<void> {
    const post = Number(request.get('post') ?? 0);
    if (post > 0) {
      const parent = await getPost(this.kit.db, post);
      if (!parent || !(request.user!.id === parent.author || request.can('edit_others_posts'))) {
        throw denied(request, 'rest_cannot_edit', message);
      }
    }
  }

  private async create(request: RestRequest): Promise<RestResponse> {
    let item: MediaItem;
    try {
      const upload = await readUploadBody(request, this.library);
      const fields = mediaFieldsOf(
        { ...request.params, ...upload.fields },
        { kses: !request.can('unfiltered_html') },
      );
      if (
        fields.author !== undefined &&
        fields.author !== request.user!.id &&
        !request.can('edit_others_posts')
      ) {
        throw denied(
          request,
          'rest_cannot_edit_others',
          'Sorry, you are not allowed to create posts as this user.',
        );
      }
      item = await this.library.storeReceived(upload.received, {
        fileName: upload.fileName,
        author: request.user!.id,
        fields,
        now: new Date(this.kit.clock()),
      });
    } catch (err) {
      throw restErrorOf(err);
    }
    const idHeader = { 'X-WP-Upload-Attachment-ID': String(item.post.id) };
    try {
      item = await this.library.makeSizes(item);
    } catch (err) {
      // The item exists: a client retries with post-process (api-fetch does) to finish it.
      this.kit.logger.warn({ err, id: item.post.id }, 'media sizes failed; left for post-process');
      const error = new RestError(
        'rest_upload_sideload_error',
        'Post-processing of the image failed likely because the server is busy or does not have enough resources. Uploading a smaller image may help. Suggested maximum size is 2560 pixels.',
        { status: 500, attachment_id: item.post.id },
      );
      return new RestResponse(error.toJSON(), 500, idHeader);
    }
    return new RestResponse(this.presenter.prepare(item, 'edit'), 201, {
      ...idHeader,
      Location: this.kit.urls.rest(`/wp/v2/media/${item.post.id}`),
    });
  }

  private async read(request: RestRequest): Promise<unknown> {
    const item = await this.item(request);
    const context = request.get<Context>('context');
    if (!canRead(request.user, item)) {
      throw denied(request, 'rest_forbidden', 'Sorry, you are not allowed to do that.');
    }
    if (context === 'edit' && !mayChange(request.user, item, 'edit')) {
      throw denied(
        request,
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit this post.',
      );
    }
    return this.presenter.prepare(item, context);
  }

  private async update(request: RestRequest): Promise<unknown> {
    const item = await this.item(request);
    if (!mayChange(request.user, item, 'edit')) {
      throw denied(request, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
    }
    await this.checkParent(request, 'Sorry, you are not allowed to attach media to this post.');
    const fields = mediaFieldsOf(request.params, { kses: !request.can('unfiltered_html') });
    if (
      fields.author !== undefined &&
      fields.author !== item.post.author &&
      !request.can('edit_others_posts')
    ) {
      throw denied(
        request,
        'rest_cannot_edit_others',
        'Sorry, you are not allowed to update posts as this user.',
      );
    }
    const updated = await this.library.update(item, fields, new Date(this.kit.clock()));
    return this.presenter.prepare(updated, 'edit');
  }

  private async remove(request: RestRequest): Promise<unknown> {
    const item = await this.item(request);
    if (!mayChange(request.user, item, 'delete')) {
      throw denied(
        request,
        'rest_cannot_delete',
        'Sorry, you are not allowed to delete this post.',
      );
    }
    if (request.get('force') !== true) {
      throw new RestError(
        'rest_trash_not_supported',
        "The post does not support trashing. Set 'force=true' to delete.",
        501,
      );
    }
    const previous = this.presenter.prepare(item, 'edit');
    await this.library.deleteForever(item);
    return { deleted: true, previous };
  }

  private async postProcess(request: RestRequest): Promise<unknown> {
    const item = await this.item(request);
    if (!mayChange(request.user, item, 'edit')) {
      throw denied(request, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
    }
    try {
      return this.presenter.prepare(await this.library.makeSizes(item), 'edit');
    } catch (err) {
      throw restErrorOf(err);
    }
  }

  private async edit(request: RestRequest): Promise<RestResponse> {
    if (!request.can('upload_files')) {
      throw denied(
        request,
        'rest_cannot_edit_image',
        'Sorry, you are not allowed to upload media on this site.',
      );
    }
    const item = await this.item(request);
    if (!mayChange(request.user, item, 'edit')) {
      throw denied(request, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
    }
    const src = String(request.get('src')).split(/[?#]/)[0]!;
    if (!this.presenter.fileUrls(item).includes(src)) {
      throw new RestError(
        'rest_unknown_attachment',
        'Unable to get meta information for file.',
        404,
      );
    }
    if (!isResizable(item.mimeType)) {
      throw new RestError('rest_cannot_edit_file_type', 'This type of file cannot be edited.', 400);
    }
    const p = request.params;
    const modifiers: ImageModifier[] = request.has('modifiers')
      ? (p.modifiers as ImageModifier[])
      : modifiersFromLegacy({
          rotation: p.rotation as number | undefined,
          x: p.x as number | undefined,
          y: p.y as number | undefined,
          width: p.width as number | undefined,
          height: p.height as number | undefined,
        });
    if (modifiers.length === 0) {
      throw new RestError(
        'rest_image_not_edited',
        'The image was not edited. Edit the image before applying the changes.',
        400,
      );
    }
    try {
      const copy = await this.library.editCopy(item, modifiers, {
        author: request.user!.id,
        fields: mediaFieldsOf(p, { kses: !request.can('unfiltered_html') }),
        now: new Date(this.kit.clock()),
      });
      const done = await this.library.makeSizes(copy);
      return new RestResponse(this.presenter.prepare(done, 'edit'), 201, {
        Location: this.kit.urls.rest(`/wp/v2/media/${done.post.id}`),
      });
    } catch (err) {
      throw restErrorOf(err);
    }
  }
}
