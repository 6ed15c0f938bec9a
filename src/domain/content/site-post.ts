/** A post-like item as stored (site_posts): posts, pages, blocks, menu items, revisions, ... */
export interface SitePost {
  id: number;
  type: string;
  status: string;
  /** 0 = no author (the first-start contents, a deleted account). */
  author: number;
  /** Null while a draft has no chosen date (its date is its modification time). */
  dateGmt: Date | null;
  modifiedGmt: Date;
  slug: string;
  title: string;
  content: string;
  excerpt: string;
  password: string;
  parent: number;
  menuOrder: number;
  commentStatus: string;
  pingStatus: string;
  format: string;
  sticky: boolean;
  template: string;
  featuredMedia: number;
  meta: Record<string, unknown>;
  trashedFrom: string | null;
  isAutosave: boolean;
  /** Fields of one type only (menu items, media, templates). */
  extra: Record<string, unknown>;
  createdAt: Date;
}

/** The writable columns (what inserts and updates take). */
export type SitePostFields = Partial<Omit<SitePost, 'id' | 'createdAt'>>;

export interface SitePostRow {
  id: string | number;
  type: string;
  status: string;
  author: string | number | null;
  date_gmt: Date | string | null;
  modified_gmt: Date | string;
  slug: string;
  title: string;
  content: string;
  excerpt: string;
  password: string;
  parent: string | number;
  menu_order: number;
  comment_status: string;
  ping_status: string;
  format: string;
  sticky: boolean;
  template: string;
  featured_media: string | number;
  meta: Record<string, unknown> | string;
  trashed_from: string | null;
  is_autosave: boolean;
  extra: Record<string, unknown> | string;
  created_at: Date | string;
}

export const SITE_POST_COLUMNS =
  'id, type, status, author, date_gmt, modified_gmt, slug, title, content, excerpt, password, parent, menu_order, comment_status, ping_status, format, sticky, template, featured_media, meta, trashed_from, is_autosave, extra, created_at';

const json = (v: Record<string, unknown> | string): Record<string, unknown> =>
  typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : v;

export function sitePostOf(r: SitePostRow): SitePost {
  return {
    id: Number(r.id),
    type: r.type,
    status: r.status,
    author: r.author === null ? 0 : Number(r.author),
    dateGmt: r.date_gmt === null ? null : new Date(r.date_gmt),
    modifiedGmt: new Date(r.modified_gmt),
    slug: r.slug,
    title: r.title,
    content: r.content,
    excerpt: r.excerpt,
    password: r.password,
    parent: Number(r.parent),
    menuOrder: r.menu_order,
    commentStatus: r.comment_status,
    pingStatus: r.ping_status,
    format: r.format,
    sticky: r.sticky,
    template: r.template,
    featuredMedia: Number(r.featured_media),
    meta: json(r.meta),
    trashedFrom: r.trashed_from,
    isAutosave: r.is_autosave,
    extra: json(r.extra),
    createdAt: new Date(r.created_at),
  };
}

/** Column of each writable field. */
export const FIELD_COLUMNS: Record<keyof SitePostFields, string> = {
  type: 'type',
  status: 'status',
  author: 'author',
  dateGmt: 'date_gmt',
  modifiedGmt: 'modified_gmt',
  slug: 'slug',
  title: 'title',
  content: 'content',
  excerpt: 'excerpt',
  password: 'password',
  parent: 'parent',
  menuOrder: 'menu_order',
  commentStatus: 'comment_status',
  pingStatus: 'ping_status',
  format: 'format',
  sticky: 'sticky',
  template: 'template',
  featuredMedia: 'featured_media',
  meta: 'meta',
  trashedFrom: 'trashed_from',
  isAutosave: 'is_autosave',
  extra: 'extra',
};
