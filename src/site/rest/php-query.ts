/**
 * Query strings and form bodies read as PHP reads them (WordPress clients rely on it):
 * `include[]=1&include[]=2`, `include[0]=1`, `categories[terms][0]=3`, `a=1&a=2` (last wins).
 * Objects whose keys are all 0..n-1 indexes become arrays.
 */
export type PhpValue = string | PhpValue[] | { [key: string]: PhpValue };

function decode(s: string): string {
  // Most names and values (`_embed`, `per_page=100`) have nothing to decode.
  if (s.indexOf('%') === -1 && s.indexOf('+') === -1) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function toArrays(value: PhpValue): PhpValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  for (const k of keys) value[k] = toArrays(value[k]!);
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => value[k]!);
  return value;
}

/** Sets an own property, `__proto__` included (as data, never the prototype). */
function setOwn(node: Record<string, PhpValue>, key: string, value: PhpValue): void {
  if (key === '__proto__') {
    Object.defineProperty(node, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    node[key] = value;
  }
}

/**
 * The parameters as a plain object. Only own properties are ever read or written, so no name
 * (`__proto__`, `constructor`) reaches a prototype; nested levels are prototype-less objects.
 */
export function parsePhpQuery(query: string): Record<string, PhpValue> {
  const root: Record<string, PhpValue> = {};
  let nested = false;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = decode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
    const open = rawKey.indexOf('[');
    if (open <= 0 || !rawKey.endsWith(']')) {
      setOwn(root, rawKey, value);
      continue;
    }
    nested = true;
    const path = [rawKey.slice(0, open), ...rawKey.slice(open + 1, -1).split('][')];
    let node: Record<string, PhpValue> = root;
    for (let i = 0; i < path.length; i++) {
      let key = path[i]!;
      if (key === '') key = String(Object.keys(node).length);
      if (i === path.length - 1) {
        setOwn(node, key, value);
      } else {
        const next = Object.hasOwn(node, key) ? node[key] : undefined;
        if (typeof next !== 'object' || next === null || Array.isArray(next)) {
          setOwn(node, key, Object.create(null) as Record<string, PhpValue>);
        }
        node = node[key] as Record<string, PhpValue>;
      }
    }
  }
  if (nested) for (const k of Object.keys(root)) setOwn(root, k, toArrays(root[k]!));
  return root;
}
