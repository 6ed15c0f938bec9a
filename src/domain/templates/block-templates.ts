import { deletePost, insertPost, saveRevision, updatePost } from '../content/posts-store.js';
import {
  SITE_POST_COLUMNS,
  sitePostOf,
  type SitePost,
  type SitePostRow,
} from '../content/site-post.js';
import type { Db } from '../../shared/db/db.js';
import { TemplateError } from './template-error.js';
import { templateHierarchy } from './template-hierarchy.js';
import { DEFAULT_TEMPLATE_TYPES, THEME_NAME, type ThemeFiles } from './theme-files.js';

export const TEMPLATE_TYPE = 'wp_template';

/** A block template as the REST API shows it (WP_Block_Template). */
export interface BlockTemplate {
  /** `theme//slug` */
  id: string;
  theme: string;
  slug: string;
  content: string;
  title: string;
  description: string;
  status: string;
  /** `theme`: only the theme's file; `custom`: a database item (edited or created). */
  source: 'theme' | 'custom';
  /** For a database item that began as a theme file: `theme`; else null. */
  origin: 'theme' | null;
  /** The database item's id (`wp_id`), null for a theme file. */
  wpId: number | null;
  hasThemeFile: boolean;
  /** Not a template of the hierarchy (a custom page template). */
  isCustom: boolean;
  author: number;
  modified: Date | null;
  /** The database item, when there is one. */
  post?: SitePost;
}

export interface TemplateFields {
  slug?: string;
  title?: string;
  content?: string;
  description?: string;
  status?: string;
  author?: number;
}

const ID = /^([^/:<>*?"|]+)\/\/([\w%-]+)$/;

/** `theme//slug` split, or undefined. */
export function parseTemplateId(id: string): { theme: string; slug: string } | undefined {
  const m = ID.exec(id);
  return m ? { theme: m[1]!, slug: m[2]! } : undefined;
}

/**
 * The theme's block templates: files of the theme (`source: theme`) until edited, then
 * wp_template items of site_posts (`source: custom`, origin theme); templates created through
 * the API are custom from the start. Lookup follows WordPress's fallback chain.
 */
export class BlockTemplates {
  readonly theme = THEME_NAME;

  constructor(
    private readonly db: Db,
    readonly files: ThemeFiles,
  ) {}

  private fromFile(slug: string, content: string): BlockTemplate {
    const info = DEFAULT_TEMPLATE_TYPES[slug];
    return {
      id: `${this.theme}//${slug}`,
      theme: this.theme,
      slug,
      content,
      title: info?.title ?? slug,
      description: info?.description ?? '',
      status: 'publish',
      source: 'theme',
      origin: null,
      wpId: null,
      hasThemeFile: true,
      isCustom: !(slug in DEFAULT_TEMPLATE_TYPES),
      author: 0,
      modified: null,
    };
  }

  private fromPost(post: SitePost): BlockTemplate {
    const hasThemeFile = this.files.templates.has(post.slug);
    return {
      id: `${this.theme}//${post.slug}`,
      theme: this.theme,
      slug: post.slug,
      content: post.content,
      title: post.title,
      description: post.excerpt,
      status: post.status,
      source: 'custom',
      origin: hasThemeFile ? 'theme' : null,
      wpId: post.id,
      hasThemeFile,
      isCustom: !hasThemeFile && !(post.slug in DEFAULT_TEMPLATE_TYPES),
      author: post.author,
      modified: post.modifiedGmt,
      post,
    };
  }

  private async rows(where = '', params: unknown[] = []): Promise<SitePost[]> {
    const r = await this.db.query<SitePostRow>(
      `SELECT ${SITE_POST_COLUMNS} FROM site_posts
        WHERE type = '${TEMPLATE_TYPE}' AND extra ->> 'theme' = $1 ${where} ORDER BY slug`,
      [this.theme, ...params],
    );
    return r.rows.map(sitePostOf);
  }

  /** Every template: database items first by slug, then the theme files not overridden. */
  async list(filter: { wpId?: number } = {}): Promise<BlockTemplate[]> {
    const posts = await this.rows(`AND status <> 'trash'`);
    const out = posts.map((p) => this.fromPost(p));
    const overridden = new Set((await this.rows()).map((p) => p.slug));
    for (const file of this.files.templates.values()) {
      if (!overridden.has(file.slug)) out.push(this.fromFile(file.slug, file.content));
    }
    out.sort((a, b) => a.slug.localeCompare(b.slug));
    return filter.wpId === undefined ? out : out.filter((t) => t.wpId === filter.wpId);
  }

  async get(id: string): Promise<BlockTemplate | undefined> {
    const parsed = parseTemplateId(id);
    if (!parsed || parsed.theme !== this.theme) return undefined;
    const [post] = await this.rows('AND slug = $2', [parsed.slug]);
    if (post) return this.fromPost(post);
    const file = this.files.templates.get(parsed.slug);
    return file ? this.fromFile(file.slug, file.content) : undefined;
  }

  /** 400 rest_template_exists when the theme or the database already has a template `slug`. */
  private async refuseTakenSlug(slug: string): Promise<void> {
    if (await this.get(`${this.theme}//${slug}`)) {
      throw new TemplateError(
        'rest_template_exists',
        400,
        `A template with the slug "${slug}" already exists.`,
      );
    }
  }

  /** A new custom template; a slug the theme or the database already has is refused. */
  async create(fields: TemplateFields & { slug: string }, now: Date): Promise<BlockTemplate> {
    await this.refuseTakenSlug(fields.slug);
    const post = await insertPost(this.db, {
      type: TEMPLATE_TYPE,
      status: fields.status ?? 'publish',
      slug: fields.slug,
      title: fields.title ?? fields.slug,
      content: fields.content ?? '',
      excerpt: fields.description ?? '',
      author: fields.author ?? 0,
      dateGmt: now,
      modifiedGmt: now,
      extra: { theme: this.theme, origin: null },
    });
    return this.fromPost(post);
  }

  /**
   * Saves changes: a theme file becomes a database item on its first edit (with the file's
   * content under the changes); an item keeps a revision of each saved state.
   */
  async update(template: BlockTemplate, fields: TemplateFields, now: Date): Promise<BlockTemplate> {
    if (fields.slug !== undefined && fields.slug !== template.slug) {
      await this.refuseTakenSlug(fields.slug);
    }
    let post: SitePost | undefined;
    if (!template.post) {
      post = await insertPost(this.db, {
        type: TEMPLATE_TYPE,
        status: fields.status ?? 'publish',
        slug: fields.slug ?? template.slug,
        title: fields.title ?? template.title,
        content: fields.content ?? template.content,
        excerpt: fields.description ?? template.description,
        author: fields.author ?? 0,
        dateGmt: now,
        modifiedGmt: now,
        extra: { theme: this.theme, origin: 'theme' },
      });
    } else {
      post = await updatePost(
        this.db,
        template.post.id,
        {
          slug: fields.slug,
          title: fields.title,
          content: fields.content,
          excerpt: fields.description,
          status: fields.status,
          author: fields.author,
        },
        now,
      );
      if (!post)
        throw new TemplateError('rest_template_not_found', 404, 'No templates exist with that id.');
    }
    await saveRevision(this.db, post, fields.author ?? post.author, now);
    return this.fromPost(post);
  }

  /**
   * DELETE: a theme file alone cannot be removed (400 rest_invalid_template); an item is trashed,
   * or with force deleted (a theme template then shows its file again).
   */
  async delete(template: BlockTemplate, force: boolean, now: Date): Promise<BlockTemplate> {
    if (!template.post) {
      throw new TemplateError(
        'rest_invalid_template',
        400,
        "Templates based on theme files can't be removed.",
      );
    }
    if (force) {
      await deletePost(this.db, template.post.id);
      return template;
    }
    if (template.status === 'trash') {
      throw new TemplateError(
        'rest_template_already_trashed',
        410,
        'The template has already been deleted.',
      );
    }
    const post = await updatePost(
      this.db,
      template.post.id,
      { status: 'trash', trashedFrom: template.status },
      now,
    );
    return this.fromPost(post!);
  }

  /**
   * resolve_block_template over a fallback chain: the first template of the hierarchy that
   * exists (a published database item or the theme's file) and has content.
   */
  async resolve(hierarchy: readonly string[]): Promise<BlockTemplate | undefined> {
    const posts = new Map(
      (await this.rows(`AND status = 'publish' AND slug = ANY($2::text[])`, [hierarchy])).map(
        (p) => [p.slug, p],
      ),
    );
    for (const slug of hierarchy) {
      const post = posts.get(slug);
      if (post && post.content !== '') return this.fromPost(post);
      const file = this.files.templates.get(slug);
      if (file && file.content !== '') return this.fromFile(slug, file.content);
    }
    return undefined;
  }

  /** GET /templates/lookup: the template a new template of `slug` would fall back to. */
  async lookup(
    slug: string,
    options: { isCustom?: boolean; templatePrefix?: string },
  ): Promise<BlockTemplate | undefined> {
    const hierarchy = templateHierarchy(slug, options);
    // WordPress walks the chain from the template itself; a template that exists is its own fallback.
    return this.resolve(hierarchy);
  }
}
