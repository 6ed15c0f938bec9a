/**
 * Query strings and form bodies read as PHP reads them (WordPress clients rely on it):
 * `include[]=1&include[]=2`, `include[0]=1`, `categories[terms][0]=3`, `a=1&a=2` (last wins).
 * Objects whose keys are all 0..n-1 indexes become arrays.
 *
 * The cost is linear in the input: every pair is read once, `a[]` appends in constant time (each
 * level keeps its next index, as PHP's arrays do), and the limits PHP applies by default bound
 * what one request can build (see PHP_INPUT_LIMITS). Past a limit the parse stops and says which
 * limit was passed; the site refuses such a request with 400 naming it.
 */
export type PhpValue = string | PhpValue[] | { [key: string]: PhpValue };

/**
 * PHP's defaults, which WordPress runs under: `max_input_vars` (1000 name=value pairs),
 * `max_input_nesting_level` (64 bracket levels in a name) and `post_max_size` (8 MiB of form
 * body; enforced by the site's body parser, it is listed here so the numbers live in one place).
 * PHP silently drops what is past them; we refuse instead, so nothing is lost unnoticed.
 */
export const PHP_INPUT_LIMITS = {
  maxInputVars: 1000,
  maxInputNestingLevel: 64,
  postMaxSizeBytes: 8 * 1024 * 1024,
} as const;

/** Which limit a query or body passed, named after PHP's setting, with a readable message. */
export interface PhpInputLimitExceeded {
  limit: 'max_input_vars' | 'max_input_nesting_level';
  message: string;
}

/**
 * Set (not enumerable) on a parse result that stopped at a limit: the query parser of the router
 * may not throw, so the site's request hook reads this and answers 400.
 */
export const PHP_INPUT_LIMIT_EXCEEDED: unique symbol = Symbol('php-input-limit-exceeded');

export interface PhpQueryOptions {
  /** Default PHP_INPUT_LIMITS.maxInputVars. */
  maxInputVars?: number;
  /** Default PHP_INPUT_LIMITS.maxInputNestingLevel. */
  maxInputNestingLevel?: number;
}

/** The limit a parse result stopped at, if any. */
export function phpInputLimitOf(parsed: unknown): PhpInputLimitExceeded | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  return (parsed as { [PHP_INPUT_LIMIT_EXCEEDED]?: PhpInputLimitExceeded })[
    PHP_INPUT_LIMIT_EXCEEDED
  ];
}

function decode(s: string): string {
  // Most names and values (`_embed`, `per_page=100`) have nothing to decode.
  if (s.indexOf('%') === -1 && s.indexOf('+') === -1) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

type Node = Record<string, PhpValue>;

/** A canonical array index ("0", "17"; not "01", "-1", "1e3"), as PHP turns into an integer key. */
function indexOf(key: string): number {
  if (key.length === 0 || key.length > 15) return -1;
  if (key.length > 1 && key.charCodeAt(0) === 48) return -1;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  return Number(key);
}

/** Sets an own property, `__proto__` included (as data, never the prototype). */
function setOwn(node: Node, key: string, value: PhpValue): void {
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
 * Turns objects whose keys are exactly 0..n-1 into arrays, bottom up. Iterative (an explicit
 * stack), so its depth is no call-stack depth; each node is visited once.
 */
function toArrays(root: Node, nestedNodes: Set<Node>): void {
  // Children before parents: a post-order walk over the nodes the parse made.
  const order: Array<{ parent: Node; key: string; node: Node }> = [];
  const stack: Array<{ parent: Node; key: string; node: Node }> = [];
  for (const key of Object.keys(root)) {
    const value = root[key];
    if (typeof value === 'object' && nestedNodes.has(value as Node))
      stack.push({ parent: root, key, node: value as Node });
  }
  while (stack.length > 0) {
    const item = stack.pop()!;
    order.push(item);
    for (const key of Object.keys(item.node)) {
      const value = item.node[key];
      if (typeof value === 'object' && nestedNodes.has(value as Node))
        stack.push({ parent: item.node, key, node: value as Node });
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const { parent, key, node } = order[i]!;
    // Integer-like keys come first, in ascending order: 0..n-1 means key i is String(i).
    const keys = Object.keys(node);
    if (keys.length > 0 && keys.every((k, j) => k === String(j))) {
      setOwn(
        parent,
        key,
        keys.map((k) => node[k]!),
      );
    }
  }
}

/**
 * The parameters as a plain object. Only own properties are ever read or written, so no name
 * (`__proto__`, `constructor`) reaches a prototype; nested levels are prototype-less objects.
 * A result that stopped at a limit carries it under PHP_INPUT_LIMIT_EXCEEDED (see
 * phpInputLimitOf); the pairs before the limit are in it, none after.
 */
export function parsePhpQuery(
  query: string,
  options: PhpQueryOptions = {},
): Record<string, PhpValue> {
  const maxVars = options.maxInputVars ?? PHP_INPUT_LIMITS.maxInputVars;
  const maxDepth = options.maxInputNestingLevel ?? PHP_INPUT_LIMITS.maxInputNestingLevel;
  const root: Node = {};
  // Each nested level's next `[]` index (PHP: one more than the largest integer key so far).
  const nextIndex = new Map<Node, number>();
  const nestedNodes = new Set<Node>();
  let vars = 0;
  const stop = (limit: PhpInputLimitExceeded) => {
    Object.defineProperty(root, PHP_INPUT_LIMIT_EXCEEDED, { value: limit, enumerable: false });
    if (nestedNodes.size > 0) toArrays(root, nestedNodes);
    return root;
  };
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end === -1) end = query.length;
    const pairStart = start;
    start = end + 1;
    if (end === pairStart) continue;
    if (++vars > maxVars) {
      return stop({
        limit: 'max_input_vars',
        message: `more than ${maxVars} input variables (max_input_vars is ${maxVars})`,
      });
    }
    const eq = query.indexOf('=', pairStart);
    const hasValue = eq !== -1 && eq < end;
    const rawKey = decode(query.slice(pairStart, hasValue ? eq : end));
    const value = hasValue ? decode(query.slice(eq + 1, end)) : '';
    const open = rawKey.indexOf('[');
    if (open <= 0 || !rawKey.endsWith(']')) {
      setOwn(root, rawKey, value);
      continue;
    }
    const path = [rawKey.slice(0, open), ...rawKey.slice(open + 1, -1).split('][')];
    if (path.length - 1 > maxDepth) {
      return stop({
        limit: 'max_input_nesting_level',
        message: `the name ${JSON.stringify(rawKey.slice(0, Math.min(open, 64)))} is nested more than ${maxDepth} levels deep (max_input_nesting_level is ${maxDepth})`,
      });
    }
    let node: Node = root;
    for (let i = 0; i < path.length; i++) {
      let key = path[i]!;
      if (i > 0) {
        const next = nextIndex.get(node) ?? 0;
        if (key === '') key = String(next);
        const index = indexOf(key);
        if (index >= next) nextIndex.set(node, index + 1);
      }
      if (i === path.length - 1) {
        setOwn(node, key, value);
      } else {
        let child = Object.hasOwn(node, key) ? node[key] : undefined;
        if (typeof child !== 'object' || child === null || !nestedNodes.has(child as Node)) {
          child = Object.create(null) as Node;
          nestedNodes.add(child);
          setOwn(node, key, child);
        }
        node = child as Node;
      }
    }
  }
  if (nestedNodes.size > 0) toArrays(root, nestedNodes);
  return root;
}
