import { POST_TYPES } from '../../../domain/content/post-types.js';
import { searchPublishedPosts } from '../../../domain/content/search-posts.js';
import { texturize } from '../../../domain/content/texturize.js';
import type { RestRequest } from '../rest/rest-request.js';
import { READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import type { PostLinks } from './post-presenter.js';
import {
  collectionResponse,
  filterByContext,
  ID_LIST,
  resourceSchema,
} from '../rest/rest-helpers.js';

/** WP_REST_Search_Controller::TYPE_ANY. */
const ANY = 'any';

/** What the post search handler searches: viewable (public) types, attachments excepted. */
export const SEARCH_SUBTYPES: readonly string[] = Object.values(POST_TYPES)
  .filter((t) => t.viewable && t.type !== 'attachment')
  .map((t) => t.type);

const VE = ['view', 'embed'] as const;

const SEARCH_SCHEMA = resourceSchema('search-result', {
  id: {
    description: 'Unique identifier for the object.',
    type: ['integer', 'string'],
    context: VE,
    readonly: true,
  },
  title: { description: 'The title for the object.', type: 'string', context: VE, readonly: true },
  url: {
    description: 'URL to the object.',
    type: 'string',
    format: 'uri',
    context: VE,
    readonly: true,
  },
  type: {
    description: 'Object type.',
    type: 'string',
    enum: ['post'],
    context: VE,
    readonly: true,
  },
  subtype: {
    description: 'Object subtype.',
    type: 'string',
    enum: [...SEARCH_SUBTYPES],
    context: VE,
    readonly: true,
  },
});

/**
 * `GET /wp/v2/search` as WordPress 6.1 has it (WP_REST_Search_Controller with the post search
 * handler): published posts and pages matching `search` (title, excerpt, content; every word),
 * titles that contain the whole phrase first, then newest first. `subtype` narrows the post types
 * (`any`, the default, overrides the others; a subtype of another object type is dropped); items
 * are `{id, title, url, type, subtype}` with `self` (embeddable), `about` and `collection` links.
 * Term and post-format searches are not offered: `type` accepts `post` only.
 */
export function registerSearchRoute(kit: SiteKit, links: PostLinks): void {
  kit.rest.register(
    'wp/v2',
    '/search',
    {
      methods: READABLE,
      callback: (request) => searchItems(kit, links, request),
      args: {
        context: {
          description:
            'Scope under which the request is made; determines fields present in response.',
          type: 'string',
          enum: [...VE],
          default: 'view',
        },
        page: {
          description: 'Current page of the collection.',
          type: 'integer',
          default: 1,
          minimum: 1,
        },
        per_page: {
          description: 'Maximum number of items to be returned in result set.',
          type: 'integer',
          default: 10,
          minimum: 1,
          maximum: 100,
        },
        search: { description: 'Limit results to those matching a string.', type: 'string' },
        type: {
          default: 'post',
          description: 'Limit results to items of an object type.',
          type: 'string',
          enum: ['post'],
        },
        subtype: {
          default: ANY,
          description: 'Limit results to items of one or more object subtypes.',
          type: 'array',
          items: { enum: [...SEARCH_SUBTYPES, ANY], type: 'string' },
          sanitize: (value) => {
            const list = value as string[];
            // 'any' overrides any other subtype.
            return list.includes(ANY) ? [ANY] : list.filter((s) => SEARCH_SUBTYPES.includes(s));
          },
        },
        exclude: { description: 'Ensure result set excludes specific IDs.', ...ID_LIST },
        include: { description: 'Limit result set to specific IDs.', ...ID_LIST },
      },
    },
    { schema: () => SEARCH_SCHEMA },
  );
}

async function searchItems(kit: SiteKit, links: PostLinks, request: RestRequest) {
  const perPage = request.get<number>('per_page');
  const page = request.get<number>('page');
  const subtypes = request.get<string[]>('subtype');
  const { total, items } = await searchPublishedPosts(kit.db, request.user, {
    // An empty list (only other object types' subtypes asked) is WP_Query's default: posts.
    types: subtypes.includes(ANY) ? [...SEARCH_SUBTYPES] : subtypes.length ? subtypes : ['post'],
    search: request.get<string | undefined>('search') || undefined,
    include: request.get<number[]>('include'),
    exclude: request.get<number[]>('exclude'),
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const context = request.get<'view' | 'embed'>('context');
  const data = [];
  for (const post of items) {
    const item = filterByContext(
      {
        id: post.id,
        title: texturize(post.title),
        url: await links.linkOf(post),
        type: 'post',
        subtype: post.type,
      },
      SEARCH_SCHEMA,
      context,
    );
    item._links = {
      self: [
        {
          embeddable: true,
          href: kit.urls.rest(`/wp/v2/${POST_TYPES[post.type]!.restBase}/${post.id}`),
        },
      ],
      about: [{ href: kit.urls.rest(`/wp/v2/types/${post.type}`) }],
      collection: [{ href: kit.urls.rest('/wp/v2/search') }],
    };
    data.push(item);
  }
  return collectionResponse(
    request,
    kit.urls,
    data,
    total,
    perPage,
    'rest_search_invalid_page_number',
  );
}
