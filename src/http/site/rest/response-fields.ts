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

/**
 * rest_is_field_included: `field` is asked for when named, when one of its sub-fields is named
 * (`_embedded.author` asks for `_embedded`), or when a field it belongs to is named.
 */
export function isFieldIncluded(field: string, fields: readonly string[]): boolean {
  return fields.some((f) => f === field || f.startsWith(`${field}.`) || field.startsWith(`${f}.`));
}

/** An item left with no field is PHP's empty array, which WordPress's JSON writes as `[]`. */
function emptyAsList(item: unknown): unknown {
  const empty =
    typeof item === 'object' &&
    item !== null &&
    !Array.isArray(item) &&
    Object.keys(item).length === 0;
  return empty ? [] : item;
}

/**
 * `_fields` on one answer. A collection's items carry their links in their data
 * (prepare_response_for_collection), so `_fields` cuts them like any key. A single item's links
 * belong to WordPress's response, not its data: `_fields` leaves them whole, and the controllers
 * add them whenever `_links` or `_embedded` is asked for, so `_embed&_fields=id,_embedded.author`
 * keeps every link and `_embed` embeds them all.
 */
export function filterResponseFields(data: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(data)) return data.map((item) => emptyAsList(filterFields(item, fields)));
  const out = emptyAsList(filterFields(data, fields));
  const links = (data as { _links?: unknown } | null)?._links;
  if (
    links !== undefined &&
    out &&
    typeof out === 'object' &&
    (isFieldIncluded('_links', fields) || isFieldIncluded('_embedded', fields))
  ) {
    (out as Record<string, unknown>)._links = links;
  }
  return out;
}
