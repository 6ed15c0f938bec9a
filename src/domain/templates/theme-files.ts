import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../shared/app/package-root.js';

/** The site theme's name: the first part of every template id (`emutrack-docs//single`). */
export const THEME_NAME = 'emutrack-docs';

/** get_default_block_template_types: titles and descriptions of the hierarchy's templates. */
export const DEFAULT_TEMPLATE_TYPES: Record<string, { title: string; description: string }> = {
  index: {
    title: 'Index',
    description:
      'Used as a fallback template for all pages when a more specific template is not defined.',
  },
  home: {
    title: 'Blog Home',
    description:
      'Displays the latest posts as either the site homepage or as the "Posts page" as defined under reading settings.',
  },
  'front-page': { title: 'Front Page', description: "Displays your site's homepage." },
  singular: {
    title: 'Single Entries',
    description: 'Displays any single entry, such as a post or a page.',
  },
  single: {
    title: 'Single Posts',
    description:
      'Displays a single post on your website unless a custom template has been applied to that post or a dedicated template exists.',
  },
  page: {
    title: 'Pages',
    description:
      'Displays a static page unless a custom template has been applied to that page or a dedicated template exists.',
  },
  archive: {
    title: 'All Archives',
    description:
      'Displays any archive, including posts by a single author, category, tag, taxonomy, custom post type, and date.',
  },
  author: { title: 'Author Archives', description: "Displays a single author's post archive." },
  category: { title: 'Category Archives', description: 'Displays a post category archive.' },
  taxonomy: { title: 'Taxonomy', description: 'Displays a custom taxonomy archive.' },
  date: {
    title: 'Date Archives',
    description: 'Displays a post archive when a specific date is visited.',
  },
  tag: { title: 'Tag Archives', description: 'Displays a post tag archive.' },
  attachment: {
    title: 'Attachment Pages',
    description:
      'Displays when a visitor views the dedicated page that exists for any media attachment.',
  },
  search: { title: 'Search Results', description: 'Displays search results.' },
  privacy: { title: 'Privacy Policy', description: "Displays your site's Privacy Policy page." },
  '404': { title: 'Page: 404', description: 'Displays when a visitor views a non-existent page.' },
};

/** One template (or part) as the theme's files have it. */
export interface ThemeFile {
  slug: string;
  content: string;
}

/** The theme's folder shipped with the package (src/domain/templates/theme: templates/ and parts/). */
export function defaultThemeDir(): string {
  return path.join(packageRoot(), 'src', 'domain', 'templates', 'theme');
}

/**
 * The theme's block templates and template parts, read from `templates/*.html` and
 * `parts/*.html` once (files do not change while the site runs; edits go to the database).
 */
export class ThemeFiles {
  readonly templates: ReadonlyMap<string, ThemeFile>;
  readonly parts: ReadonlyMap<string, ThemeFile>;

  constructor(readonly dir: string = defaultThemeDir()) {
    this.templates = readFolder(path.join(dir, 'templates'));
    this.parts = readFolder(path.join(dir, 'parts'));
  }
}

function readFolder(dir: string): Map<string, ThemeFile> {
  const out = new Map<string, ThemeFile>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    if (!name.endsWith('.html')) continue;
    const slug = name.slice(0, -'.html'.length);
    out.set(slug, { slug, content: readFileSync(path.join(dir, name), 'utf8') });
  }
  return out;
}
