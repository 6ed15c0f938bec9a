import {
  getPost,
  listAutosaves,
  listPosts,
  saveAutosave,
  deletePost,
} from '../../../domain/content/posts-store.js';
import {
  BlockTemplates,
  type BlockTemplate,
  type TemplateFields,
} from '../../../domain/templates/block-templates.js';
import { TemplateError } from '../../../domain/templates/template-error.js';
import { ThemeFiles } from '../../../domain/templates/theme-files.js';
import { rawText, type ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { RestResponse } from '../rest/rest-response.js';
import { CREATABLE, DELETABLE, EDITABLE, READABLE } from '../rest/route-registry.js';
import type { SiteKit, SiteModule } from '../site-kit.js';
import { contextArg, denied, type Context } from '../rest/rest-helpers.js';
import { blockThemeRenderer } from './block-theme.js';
import {
  prepareTemplate,
  prepareTemplateRevision,
  TEMPLATE_SCHEMA,
  templatePath,
} from './template-presenter.js';

/** WordPress's id pattern: `theme//slug`, the theme allowing one slash-separated part. */
const TEMPLATE_ID = '([^\\/:<>\\*\\?"\\|]+(?:\\/[^\\/:<>\\*\\?"\\|]+)?)[\\/\\w%-]+';

const WRITE_ARGS: Record<string, ArgSchema> = {
  slug: { type: 'string', minLength: 1, pattern: '^[a-zA-Z0-9_%-]+$' },
  theme: { type: 'string' },
  type: { type: 'string' },
  content: { type: ['object', 'string'] },
  title: { type: ['object', 'string'] },
  description: { type: 'string' },
  status: { type: 'string', enum: ['publish', 'future', 'draft', 'pending', 'private'] },
  author: { type: 'integer' },
};

function fieldsOf(request: RestRequest, creating = false): TemplateFields {
  const p = request.params;
  return {
    slug: p.slug === undefined ? undefined : String(p.slug),
    title: rawText(p.title),
    content: rawText(p.content),
    description: p.description === undefined ? undefined : String(p.description),
    status: p.status === undefined ? undefined : String(p.status),
    // The author stays on edits unless given; a new template is the caller's.
    author: p.author !== undefined ? Number(p.author) : creating ? request.user?.id : undefined,
  };
}

function asRest(err: unknown): unknown {
  return err instanceof TemplateError ? new RestError(err.code, err.message, err.status) : err;
}

/**
 * Block templates: /wp/v2/templates (list with wp_id, area, post_type; create), lookup,
 * items by `theme//slug` (read, edit: a theme file becomes a custom item, delete), revisions and
 * autosaves; and the site's HTML pages rendered through the templates.
 */
export function createTemplatesModule(options: { themeDir?: string } = {}): SiteModule {
  return {
    name: 'templates',
    register(kit: SiteKit) {
      const templates = new BlockTemplates(kit.db, new ThemeFiles(options.themeDir));
      const { urls, rest } = kit;
      const now = () => new Date(kit.clock());
      const permission = (request: RestRequest) => {
        if (!request.can('edit_theme_options')) {
          throw denied(
            request,
            'rest_cannot_manage_templates',
            'Sorry, you are not allowed to access the templates on this site.',
          );
        }
      };
      const schema = () => TEMPLATE_SCHEMA as unknown as Record<string, unknown>;
      const find = async (id: string): Promise<BlockTemplate> => {
        const t = await templates.get(decodeURIComponent(id));
        if (!t)
          throw new RestError('rest_template_not_found', 'No templates exist with that id.', 404);
        return t;
      };
      const dbItem = (t: BlockTemplate) => {
        if (!t.post)
          throw new RestError('rest_post_invalid_parent', 'Invalid template parent ID.', 404);
        return t.post;
      };

      kit.theme.use((previous) => blockThemeRenderer(templates, previous));

      rest.register('wp/v2', '/templates/lookup', {
        methods: READABLE,
        permission,
        args: {
          slug: { type: 'string', required: true },
          is_custom: { type: 'boolean' },
          template_prefix: { type: 'string' },
        },
        callback: async (request) => {
          const found = await templates.lookup(String(request.get('slug')), {
            isCustom: request.get<boolean | undefined>('is_custom'),
            templatePrefix: request.get<string | undefined>('template_prefix'),
          });
          return found ? prepareTemplate(urls, found, 'edit') : {};
        },
      });

      rest.register(
        'wp/v2',
        '/templates',
        [
          {
            methods: READABLE,
            permission,
            args: {
              context: contextArg(),
              wp_id: { type: 'integer' },
              area: { type: 'string' },
              post_type: { type: 'string' },
            },
            callback: async (request) => {
              let list = await templates.list({ wpId: request.get<number | undefined>('wp_id') });
              // Areas belong to template parts; post types to custom templates, which name none here.
              if (request.has('area')) list = [];
              if (request.has('post_type')) list = list.filter((t) => !t.isCustom);
              return list.map((t) => prepareTemplate(urls, t, request.get<Context>('context')));
            },
          },
          {
            methods: CREATABLE,
            permission,
            args: { ...WRITE_ARGS, slug: { ...WRITE_ARGS.slug!, required: true } },
            callback: async (request) => {
              try {
                const fields = fieldsOf(request, true);
                const created = await templates.create({ ...fields, slug: fields.slug! }, now());
                return new RestResponse(prepareTemplate(urls, created, 'edit'), 201, {
                  Location: urls.rest(`/wp/v2/templates/${templatePath(created.id)}`),
                });
              } catch (err) {
                throw asRest(err);
              }
            },
          },
        ],
        { schema },
      );

      // Revisions and autosaves before the item route: its id pattern would swallow their paths.
      rest.register('wp/v2', `/templates/(?P<parent>${TEMPLATE_ID})/revisions`, {
        methods: READABLE,
        permission,
        args: {
          context: contextArg('view'),
          page: { type: 'integer', default: 1, minimum: 1 },
          per_page: { type: 'integer', minimum: 1, maximum: 100 },
        },
        callback: async (request) => {
          const t = await find(String(request.get('parent')));
          if (!t.post) return [];
          const perPage = request.get<number | undefined>('per_page') ?? 100;
          const { total, items } = await listPosts(kit.db, {
            types: ['revision'],
            parents: [t.post.id],
            autosave: false,
            orderby: 'date',
            order: 'desc',
            limit: perPage,
            offset: (Number(request.get('page')) - 1) * perPage,
          });
          return new RestResponse(
            items.map((r) => prepareTemplateRevision(urls, t, r)),
            200,
            {
              'X-WP-Total': String(total),
              'X-WP-TotalPages': String(Math.max(1, Math.ceil(total / perPage))),
            },
          );
        },
      });
      const revisionOf = async (request: RestRequest, autosave: boolean) => {
        const t = await find(String(request.get('parent')));
        const r = await getPost(kit.db, Number(request.get('id')));
        if (
          !t.post ||
          !r ||
          r.type !== 'revision' ||
          r.parent !== t.post.id ||
          r.isAutosave !== autosave
        ) {
          throw new RestError('rest_post_invalid_id', 'Invalid revision ID.', 404);
        }
        return { t, r };
      };
      const readRevision = (autosave: boolean) => async (request: RestRequest) => {
        const { t, r } = await revisionOf(request, autosave);
        return prepareTemplateRevision(urls, t, r);
      };
      rest.register('wp/v2', `/templates/(?P<parent>${TEMPLATE_ID})/revisions/(?P<id>[\\d]+)`, [
        {
          methods: READABLE,
          permission,
          args: { context: contextArg('view') },
          callback: readRevision(false),
        },
        {
          methods: DELETABLE,
          permission,
          args: { force: { type: 'boolean', default: false } },
          callback: async (request) => {
            const { t, r } = await revisionOf(request, false);
            if (request.get('force') !== true) {
              throw new RestError(
                'rest_trash_not_supported',
                "Revisions do not support trashing. Set 'force=true' to delete.",
                501,
              );
            }
            const previous = prepareTemplateRevision(urls, t, r);
            await deletePost(kit.db, r.id);
            return { deleted: true, previous };
          },
        },
      ]);
      rest.register('wp/v2', `/templates/(?P<id>${TEMPLATE_ID})/autosaves`, [
        {
          methods: READABLE,
          permission,
          args: { context: contextArg('view') },
          callback: async (request) => {
            const t = await find(String(request.get('id')));
            if (!t.post) return [];
            const items = await listAutosaves(kit.db, t.post.id, 100);
            return items.map((r) => prepareTemplateRevision(urls, t, r));
          },
        },
        {
          methods: CREATABLE,
          permission,
          args: WRITE_ARGS,
          callback: async (request) => {
            let t = await find(String(request.get('id')));
            // Autosaves belong to a database item: a theme file becomes one first.
            if (!t.post) t = await templates.update(t, {}, now());
            const fields = fieldsOf(request);
            const autosave = await saveAutosave(
              kit.db,
              dbItem(t),
              request.user!.id,
              {
                title: fields.title ?? t.title,
                content: fields.content ?? t.content,
                excerpt: fields.description ?? t.description,
              },
              now(),
            );
            return prepareTemplateRevision(urls, t, autosave);
          },
        },
      ]);
      rest.register('wp/v2', `/templates/(?P<parent>${TEMPLATE_ID})/autosaves/(?P<id>[\\d]+)`, {
        methods: READABLE,
        permission,
        args: { context: contextArg('view') },
        callback: readRevision(true),
      });

      rest.register(
        'wp/v2',
        `/templates/(?P<id>${TEMPLATE_ID})`,
        [
          {
            methods: READABLE,
            permission,
            args: { context: contextArg('view') },
            callback: async (request) =>
              prepareTemplate(
                urls,
                await find(String(request.get('id'))),
                request.get<Context>('context'),
              ),
          },
          {
            methods: EDITABLE,
            permission,
            args: WRITE_ARGS,
            callback: async (request) => {
              try {
                const t = await find(String(request.get('id')));
                return prepareTemplate(
                  urls,
                  await templates.update(t, fieldsOf(request), now()),
                  'edit',
                );
              } catch (err) {
                throw asRest(err);
              }
            },
          },
          {
            methods: DELETABLE,
            permission,
            args: { force: { type: 'boolean', default: false } },
            callback: async (request) => {
              try {
                const t = await find(String(request.get('id')));
                const force = request.get('force') === true;
                const result = await templates.delete(t, force, now());
                const data = prepareTemplate(urls, result, 'edit');
                return force ? { deleted: true, previous: data } : data;
              } catch (err) {
                throw asRest(err);
              }
            },
          },
        ],
        { schema },
      );
    },
  };
}
