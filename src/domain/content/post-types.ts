/**
 * The post types of the site with WordPress's settings: REST base, capabilities (capability_type
 * post or page; menu items need edit_theme_options), what each supports.
 */
export interface PostTypeCaps {
  /** What reading a published item takes (`read` for all but blocks: anyone may read). */
  read: string;
  edit: string;
  editOthers: string;
  editPublished: string;
  editPrivate: string;
  publish: string;
  readPrivate: string;
  delete: string;
  deleteOthers: string;
  deletePublished: string;
  deletePrivate: string;
  create: string;
}

export interface PostTypeInfo {
  type: string;
  restBase: string;
  singular: string;
  hierarchical: boolean;
  caps: PostTypeCaps;
  taxonomies: string[];
  /** WordPress's post_type_supports. */
  supports: Record<string, boolean>;
  /** Whether DELETE without force trashes (menu items: no). */
  trash: boolean;
  revisions: boolean;
  autosaves: boolean;
  /** Shown on the site at a link of its own. */
  viewable: boolean;
}

function capsOf(plural: 'posts' | 'pages'): PostTypeCaps {
  return {
    read: 'read',
    edit: `edit_${plural}`,
    editOthers: `edit_others_${plural}`,
    editPublished: `edit_published_${plural}`,
    editPrivate: `edit_private_${plural}`,
    publish: `publish_${plural}`,
    readPrivate: `read_private_${plural}`,
    delete: `delete_${plural}`,
    deleteOthers: `delete_others_${plural}`,
    deletePublished: `delete_published_${plural}`,
    deletePrivate: `delete_private_${plural}`,
    create: `edit_${plural}`,
  };
}

/** What WordPress 6.1 registers posts as supporting (get_all_post_type_supports). */
export const POST_SUPPORTS: Record<string, true> = {
  title: true,
  editor: true,
  author: true,
  thumbnail: true,
  excerpt: true,
  trackbacks: true,
  'custom-fields': true,
  comments: true,
  revisions: true,
  'post-formats': true,
};

/** What WordPress 6.1 registers pages as supporting: no excerpt (their REST schema has one). */
export const PAGE_SUPPORTS: Record<string, true> = {
  title: true,
  editor: true,
  author: true,
  thumbnail: true,
  'page-attributes': true,
  'custom-fields': true,
  comments: true,
  revisions: true,
};

const THEME_OPTIONS: PostTypeCaps = Object.fromEntries(
  Object.keys(capsOf('posts')).map((k) => [k, 'edit_theme_options']),
) as unknown as PostTypeCaps;

export const POST_TYPES: Record<string, PostTypeInfo> = {
  post: {
    type: 'post',
    restBase: 'posts',
    singular: 'Post',
    hierarchical: false,
    caps: capsOf('posts'),
    taxonomies: ['category', 'post_tag'],
    supports: { ...POST_SUPPORTS, autosave: true },
    trash: true,
    revisions: true,
    autosaves: true,
    viewable: true,
  },
  page: {
    type: 'page',
    restBase: 'pages',
    singular: 'Page',
    hierarchical: true,
    caps: capsOf('pages'),
    taxonomies: [],
    supports: {
      ...PAGE_SUPPORTS,
      // Not in WordPress's page supports, but its REST controller's fixed schema for pages has
      // the excerpt (WP_REST_Posts_Controller::get_item_schema, $fixed_schemas['page']).
      excerpt: true,
      autosave: true,
    },
    trash: true,
    revisions: true,
    autosaves: true,
    viewable: true,
  },
  wp_block: {
    type: 'wp_block',
    restBase: 'blocks',
    singular: 'Pattern',
    hierarchical: false,
    // WordPress: "You need to be able to edit posts, in order to read blocks in their raw form."
    // and creating one needs publish_posts (its create_posts capability), so not contributors.
    caps: { ...capsOf('posts'), read: 'edit_posts', create: 'publish_posts' },
    taxonomies: ['wp_pattern_category'],
    supports: { title: true, editor: true, revisions: true, 'custom-fields': true, autosave: true },
    trash: true,
    revisions: true,
    autosaves: true,
    viewable: false,
  },
  nav_menu_item: {
    type: 'nav_menu_item',
    restBase: 'menu-items',
    singular: 'Navigation Menu Item',
    hierarchical: false,
    caps: THEME_OPTIONS,
    taxonomies: ['nav_menu'],
    supports: { title: true },
    trash: false,
    revisions: false,
    autosaves: true,
    viewable: false,
  },
};

/** The statuses a write may give an item (the posts schema's `status`). */
export const WRITABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'];

/** WordPress's other statuses, trash aside: its own (auto-draft, inherit) and user requests'. */
export const INTERNAL_STATUSES = [
  'auto-draft',
  'inherit',
  'request-pending',
  'request-confirmed',
  'request-failed',
  'request-completed',
];

/** Draft's and pending's flags, the same for both: protected, the date floating till published. */
const NOT_YET_PUBLISHED = {
  public: false,
  protected: true,
  private: false,
  queryable: false,
  showInList: true,
  dateFloating: true,
};

/** Statuses WordPress shows (get_post_stati, public or for editors). */
export const POST_STATUSES: Record<
  string,
  {
    name: string;
    public: boolean;
    protected: boolean;
    private: boolean;
    queryable: boolean;
    showInList: boolean;
    dateFloating: boolean;
  }
> = {
  publish: {
    name: 'Published',
    public: true,
    protected: false,
    private: false,
    queryable: true,
    showInList: true,
    dateFloating: false,
  },
  future: {
    name: 'Scheduled',
    public: false,
    protected: true,
    private: false,
    queryable: false,
    showInList: true,
    dateFloating: false,
  },
  draft: { name: 'Draft', ...NOT_YET_PUBLISHED },
  pending: { name: 'Pending', ...NOT_YET_PUBLISHED },
  private: {
    name: 'Private',
    public: false,
    protected: false,
    private: true,
    queryable: false,
    showInList: true,
    dateFloating: false,
  },
  trash: {
    name: 'Trash',
    public: false,
    protected: false,
    private: false,
    queryable: false,
    // show_in_admin_all_list: trashed items are not in the "All" list.
    showInList: false,
    dateFloating: false,
  },
};
