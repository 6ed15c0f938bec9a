/**
 * rest_filter_response_by_context's sibling for `_fields`: keeps only the named fields of an
 * item, nested ones by dots (`title.rendered`). `_links` and `_embedded` stay only when named.
 */
export function filterFields(item: unknown, fields: readonly string[]): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const source = item as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const parts = field.split('.');
    let from: unknown = source;
    let to: Record<string, unknown> = out;
    for (let i = 0; i < parts.length; i++) {
      const key = parts[i]!;
      if (typeof from !== 'object' || from === null || !(key in (from as object))) break;
      const value = (from as Record<string, unknown>)[key];
      if (i === parts.length - 1) {
        to[key] = value;
      } else {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          to[key] = value;
          break;
        }
        to[key] ??= {};
        to = to[key] as Record<string, unknown>;
        from = value;
      }
    }
  }
  return out;
}
