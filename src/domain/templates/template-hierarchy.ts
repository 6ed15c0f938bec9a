/**
 * get_template_hierarchy: the templates WordPress tries, most specific first, for a template
 * slug; e.g. single-post-hello -> single-post-hello, single-post, single, singular, index.
 * `postTypes` and `taxonomies` are the site's, in registration order (as get_post_types gives).
 */
export function templateHierarchy(
  slug: string,
  options: {
    isCustom?: boolean;
    templatePrefix?: string;
    postTypes?: readonly string[];
    taxonomies?: readonly string[];
  } = {},
): string[] {
  if (slug === 'index') return ['index'];
  if (options.isCustom) return ['page', 'singular', 'index'];
  if (slug === 'front-page') return ['front-page', 'home', 'index'];
  const hierarchy = [slug];
  const prefix = options.templatePrefix ?? '';
  let m: RegExpExecArray | null;
  if (prefix !== '') {
    const type = prefix.split('-')[0]!;
    if (prefix !== slug && prefix !== type) hierarchy.push(prefix);
    if (slug !== type) hierarchy.push(type);
  } else if ((m = /^(author|category|archive|tag|page)-.+$/.exec(slug))) {
    hierarchy.push(m[1]!);
  } else if ((m = /^(taxonomy|single)-(.+)$/.exec(slug))) {
    const type = m[1]!;
    const remaining = m[2]!;
    const items =
      type === 'single'
        ? (options.postTypes ?? ['post', 'page', 'attachment'])
        : (options.taxonomies ?? ['category', 'post_tag']);
    for (const item of items) {
      if (!remaining.startsWith(item)) continue;
      if (remaining === item) {
        hierarchy.push(type);
        break;
      }
      if (remaining.length > item.length + 1) {
        hierarchy.push(`${type}-${item}`, type);
        break;
      }
    }
  }
  if (/^(author|taxonomy|category|tag)/.test(slug) || slug === 'date') hierarchy.push('archive');
  if (slug === 'attachment') hierarchy.push('single');
  if (/^(single|page)/.test(slug) || slug === 'attachment') hierarchy.push('singular');
  hierarchy.push('index');
  return hierarchy;
}
