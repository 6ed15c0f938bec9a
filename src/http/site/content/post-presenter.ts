import { LRUCache } from 'lru-cache';
import type { Db } from '../../../shared/db/db.js';
import {
  generatedExcerpt,
  hasBlocks,
  renderContent,
  type DynamicBlockRenderer,
} from '../../../domain/content/block-render.js';
import { autop } from '../../../domain/content/autop.js';
import type { PostTypeInfo } from '../../../domain/content/post-types.js';
import {
  getPost,
  getPosts,
  revisionSummary,
  uniquePostSlug,
} from '../../../domain/content/posts-store.js';
import { gmtDate, localDate } from '../../../domain/content/site-dates.js';
import type { SitePost } from '../../../domain/content/site-post.js';
import { sanitizeSlug } from '../../../domain/content/slugs.js';
import { termsOfPosts } from '../../../domain/content/terms-store.js';
import { texturize } from '../../../domain/content/texturize.js';
import { canEditPost, postPasswordMatches } from '../../../domain/content/capabilities.js';
import type { RestRequest } from '../rest/rest-request.js';
import type { RestLink } from '../rest/rest-response.js';
import type { SiteUrls } from '../site-urls.js';
import {
  CURIES,
  filterByContext,
  type Context,
  type ResourceSchema,
} from '../rest/rest-helpers.js';
import { taxonomyRestBase } from './wp-registry.js';

/** Public HTML address of items: posts by date and slug, pages by their path, the rest by id. */
export class PostLinks {
  constructor(
    private readonly db: Db,
    private readonly urls: SiteUrls,
  ) {}

  async linkOf(post: SitePost, cache?: Map<number, SitePost>): Promise<string> {
    const visible = post.status === 'publish' || post.status === 'private';
    // wp_block is a built-in type without a permastruct of its own: get_permalink gives it the
    // posts' structure, as WordPress does.
    if ((post.type === 'post' || post.type === 'wp_block') && visible && post.slug) {
      const d = localDate(post.dateGmt ?? post.modifiedGmt);
      return this.urls.page(`/${d.slice(0, 4)}/${d.slice(5, 7)}/${d.slice(8, 10)}/${post.slug}/`);
    }
    if (post.type === 'page' && visible && post.slug) {
      const parents = await this.parentsOf(post, cache);
      const slugs = [...parents.map((p) => p.slug || String(p.id)), post.slug];
      return this.urls.page(`/${slugs.join('/')}/`);
    }
    if (post.type === 'page') return this.urls.page(`/?page_id=${post.id}`);
    return this.urls.page(`/?p=${post.id}`);
  }

  /**
   * get_sample_permalink's template: the post's own date in place of the date tags; a child
   * page's parents' path before `%pagename%` (get_page_uri, decoded as the editable_slug filter
   * does); an item in the trash has its plain link (wp_force_plain_post_permalink: the status
   * is neither viewable nor private nor protected).
   */
  async permalinkTemplate(post: SitePost, cache?: Map<number, SitePost>): Promise<string> {
    if (post.status === 'trash') {
      return this.urls.page(post.type === 'page' ? `/?page_id=${post.id}` : `/?p=${post.id}`);
    }
    if (post.type === 'post') {
      const d = localDate(post.dateGmt ?? post.modifiedGmt);
      return this.urls.page(`/${d.slice(0, 4)}/${d.slice(5, 7)}/${d.slice(8, 10)}/%postname%/`);
    }
    if (post.type === 'page') {
      const parents = (await this.parentsOf(post, cache)).filter((p) => p.slug);
      return this.urls.page(`/${parents.map((p) => `${decodeSlug(p.slug)}/`).join('')}%pagename%/`);
    }
    return this.urls.page(`/?p=%postname%`);
  }

  /** A page's parents, top first: the nearest ten at the most, up to one that is missing. */
  private async parentsOf(post: SitePost, cache?: Map<number, SitePost>): Promise<SitePost[]> {
    const parents: SitePost[] = [];
    let parent = post.parent;
    for (let depth = 0; parent > 0 && depth < 10; depth++) {
      const p = cache?.get(parent) ?? (await getPost(this.db, parent));
      if (!p) break;
      cache?.set(parent, p);
      parents.unshift(p);
      parent = p.parent;
    }
    return parents;
  }
}

/** WordPress's editable_slug filter (urldecode): a stored slug as the editor shows it. */
export function decodeSlug(slug: string): string {
  try {
    return decodeURIComponent(slug);
  } catch {
    return slug;
  }
}

/** Rendered content kept by item and modification (not for content that includes reusable blocks). */
const renderedCache = new LRUCache<string, string>({ max: 5000 });
const excerptCache = new LRUCache<string, string>({ max: 5000 });

export interface PresenterDeps {
  db: Db;
  urls: SiteUrls;
  links: PostLinks;
  dynamicBlocks: ReadonlyMap<string, DynamicBlockRenderer>;
}

/** prepare_item_for_response for posts, pages and blocks: every field, then the context's. */
export class PostPresenter {
  constructor(
    private readonly deps: PresenterDeps,
    readonly type: PostTypeInfo,
    readonly schema: ResourceSchema,
  ) {}

  /** The items' public addresses. */
  get links(): PostLinks {
    return this.deps.links;
  }

  async renderedContent(post: SitePost): Promise<string> {
    const cacheable = !post.content.includes('<!-- wp:block ');
    const key = `${post.id}:${post.modifiedGmt.getTime()}:${post.content.length}`;
    if (cacheable) {
      const hit = renderedCache.get(key);
      if (hit !== undefined) return hit;
    }
    const html = await renderContent(post.content, {
      dynamic: this.deps.dynamicBlocks,
      reusable: async (id) => {
        const block = await getPost(this.deps.db, id);
        return block && block.type === 'wp_block' && block.status === 'publish'
          ? block.content
          : undefined;
      },
    });
    if (cacheable) renderedCache.set(key, html);
    return html;
  }

  async prepareMany(
    posts: SitePost[],
    request: RestRequest,
    context: Context,
  ): Promise<Record<string, unknown>[]> {
    const ids = posts.map((p) => p.id);
    const [terms, revisions] = await Promise.all([
      this.type.taxonomies.length > 0
        ? termsOfPosts(this.deps.db, ids)
        : Promise.resolve(new Map()),
      this.type.revisions ? revisionSummary(this.deps.db, ids) : Promise.resolve(new Map()),
    ]);
    const parentCache = new Map<number, SitePost>();
    if (this.type.hierarchical) {
      for (const [id, p] of await getPosts(
        this.deps.db,
        posts.map((x) => x.parent).filter((x) => x > 0),
      ))
        parentCache.set(id, p);
    }
    const out: Record<string, unknown>[] = [];
    for (const post of posts) {
      out.push(
        await this.prepare(post, request, context, {
          terms: terms.get(post.id),
          revisions: revisions.get(post.id),
          parentCache,
        }),
      );
    }
    return out;
  }

  async prepareOne(
    post: SitePost,
    request: RestRequest,
    context: Context,
  ): Promise<Record<string, unknown>> {
    return (await this.prepareMany([post], request, context))[0]!;
  }

  private async prepare(
    post: SitePost,
    request: RestRequest,
    context: Context,
    extra: {
      terms?: Map<string, number[]>;
      revisions?: { count: number; latest: number };
      parentCache: Map<number, SitePost>;
    },
  ): Promise<Record<string, unknown>> {
    const { urls, links } = this.deps;
    const type = this.type;
    const s = type.supports;
    const date = post.dateGmt ?? post.modifiedGmt;
    const isProtected = post.password !== '';
    // can_access_password_content: the right password, or the edit context for whoever may edit
    // the post. The view context blanks a protected post for administrators too, as WordPress.
    const canSee =
      !isProtected ||
      postPasswordMatches(post, request.get('password')) ||
      (context === 'edit' && canEditPost(request.user, post, type));
    const data: Record<string, unknown> = {
      id: post.id,
      date: localDate(date),
      // A draft without a date of its own (post_date_gmt 0000-00-00) shows its date as GMT:
      // WP_REST_Posts_Controller shims it from post_date.
      date_gmt: gmtDate(date),
      guid: { rendered: urls.page(`/?p=${post.id}`), raw: urls.page(`/?p=${post.id}`) },
      modified: localDate(post.modifiedGmt),
      modified_gmt: gmtDate(post.modifiedGmt),
      slug: post.slug,
      status: post.status,
      type: post.type,
      link: await links.linkOf(post, extra.parentCache),
      password: post.password,
    };
    if (type.viewable) {
      data.permalink_template = await links.permalinkTemplate(post, extra.parentCache);
      // get_sample_permalink($id, $title, ''): from the title, whatever the slug is, made
      // unique among the type's other items (wp_unique_post_slug, asked as if published) and
      // decoded by the editable_slug filter. Only the edit context shows it.
      const fromTitle = sanitizeSlug(post.title) || String(post.id);
      data.generated_slug = decodeSlug(
        context === 'edit'
          ? await uniquePostSlug(this.deps.db, post.type, fromTitle, post.id)
          : fromTitle,
      );
    }
    if (s.title) {
      data.title =
        type.type === 'wp_block'
          ? { raw: post.title }
          : {
              raw: post.title,
              // get_the_title's private_title_format (the REST API keeps it; it drops only the
              // protected one).
              rendered: texturize(
                post.status === 'private' ? `Private: ${post.title}` : post.title,
              ),
            };
    }
    if (s.editor) {
      if (type.type === 'wp_block') {
        data.content = {
          raw: post.content,
          protected: isProtected,
          block_version: hasBlocks(post.content) ? 1 : 0,
        };
      } else {
        const rendered = canSee ? await this.renderedContent(post) : '';
        data.content = {
          raw: post.content,
          rendered,
          protected: isProtected,
          block_version: hasBlocks(post.content) ? 1 : 0,
        };
      }
    }
    if (s.author) data.author = post.author;
    if (s.excerpt) {
      let rendered = '';
      if (canSee) {
        if (post.excerpt !== '') rendered = texturize(autop(post.excerpt));
        else {
          const length = Number(request.get('excerpt_length') ?? 55);
          const key = `${post.id}:${post.modifiedGmt.getTime()}:${length}`;
          const cached = post.content.includes('<!-- wp:block ')
            ? undefined
            : excerptCache.get(key);
          rendered = cached ?? generatedExcerpt(await this.renderedContent(post), length);
          if (cached === undefined) excerptCache.set(key, rendered);
        }
      }
      data.excerpt = { raw: post.excerpt, rendered, protected: isProtected };
    }
    if (s.thumbnail) data.featured_media = post.featuredMedia;
    if (s.comments) {
      data.comment_status = post.commentStatus;
      data.ping_status = post.pingStatus;
    }
    if (type.hierarchical) {
      data.parent = post.parent;
      data.menu_order = post.menuOrder;
    }
    if (s['post-formats']) data.format = post.format;
    data.meta = this.metaOf(post);
    if (type.type === 'post') data.sticky = post.sticky;
    data.template = post.template;
    for (const taxonomy of type.taxonomies) {
      data[taxonomyRestBase(taxonomy)] = extra.terms?.get(taxonomy) ?? [];
    }
    const filtered = filterByContext(data, this.schema, context);
    const itemLinks = this.linksOf(post, extra.revisions);
    if (context === 'edit') Object.assign(itemLinks, this.actionLinks(post, request));
    filtered._links = itemLinks;
    return filtered;
  }

  /**
   * get_available_actions: in the edit context, what the caller may do to the item, each as a
   * link to it (the block editor shows its controls by them).
   */
  private actionLinks(post: SitePost, request: RestRequest): Record<string, RestLink[]> {
    const self = [{ href: this.deps.urls.rest(`/wp/v2/${this.type.restBase}/${post.id}`) }];
    const caps = this.type.caps;
    const rels: string[] = [];
    if (request.can(caps.publish)) rels.push('wp:action-publish');
    if (request.can('unfiltered_html')) rels.push('wp:action-unfiltered-html');
    if (this.type.type === 'post' && request.can(caps.editOthers) && request.can(caps.publish)) {
      rels.push('wp:action-sticky');
    }
    if (this.type.supports.author && request.can(caps.editOthers)) {
      rels.push('wp:action-assign-author');
    }
    for (const taxonomy of this.type.taxonomies) {
      const base = taxonomyRestBase(taxonomy);
      // Creating a hierarchical term needs edit_terms (manage_categories); a tag, assign_terms.
      const createCap = taxonomy === 'category' ? 'manage_categories' : 'edit_posts';
      if (request.can(createCap)) rels.push(`wp:action-create-${base}`);
      if (request.can('edit_posts')) rels.push(`wp:action-assign-${base}`);
    }
    return Object.fromEntries(rels.map((rel) => [rel, self]));
  }

  metaOf(post: SitePost): Record<string, unknown> {
    const props = this.schema.properties.meta?.properties ?? {};
    const out: Record<string, unknown> = {};
    for (const [key, schema] of Object.entries(props)) out[key] = post.meta[key] ?? schema.default;
    return out;
  }

  linksOf(
    post: SitePost,
    revisions?: { count: number; latest: number },
  ): Record<string, RestLink[]> {
    const { urls } = this.deps;
    const base = `/wp/v2/${this.type.restBase}`;
    const links: Record<string, RestLink[]> = {
      self: [{ href: urls.rest(`${base}/${post.id}`) }],
      collection: [{ href: urls.rest(base) }],
      about: [{ href: urls.rest(`/wp/v2/types/${post.type}`) }],
    };
    if (this.type.supports.author && post.author > 0) {
      links.author = [{ embeddable: true, href: urls.rest(`/wp/v2/users/${post.author}`) }];
    }
    if (this.type.revisions) {
      links['version-history'] = [
        { count: revisions?.count ?? 0, href: urls.rest(`${base}/${post.id}/revisions`) },
      ];
      if (revisions && revisions.count > 0) {
        links['predecessor-version'] = [
          {
            id: revisions.latest,
            href: urls.rest(`${base}/${post.id}/revisions/${revisions.latest}`),
          },
        ];
      }
    }
    if (this.type.hierarchical && post.parent > 0) {
      links.up = [{ embeddable: true, href: urls.rest(`${base}/${post.parent}`) }];
    }
    if (post.featuredMedia > 0) {
      links['wp:featuredmedia'] = [
        { embeddable: true, href: urls.rest(`/wp/v2/media/${post.featuredMedia}`) },
      ];
    }
    // Every type but attachments, menu items and revisions (reusable blocks too).
    if (this.type.supports.editor) {
      links['wp:attachment'] = [{ href: urls.rest('/wp/v2/media', { parent: post.id }) }];
    }
    if (this.type.taxonomies.length > 0) {
      links['wp:term'] = this.type.taxonomies.map((taxonomy) => ({
        taxonomy,
        embeddable: true,
        href: urls.rest(`/wp/v2/${taxonomyRestBase(taxonomy)}`, { post: post.id }),
      }));
    }
    links.curies = CURIES;
    return links;
  }
}
