import { expect } from 'vitest';

/** Paths of every null in a JSON value: optional fields are omitted, never null. */
export function nullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${path}[${i}]`));
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      nullPaths(v, `${path}.${k}`),
    );
  }
  return [];
}

export function expectNoNulls(value: unknown): void {
  expect(nullPaths(value)).toEqual([]);
}

/** The quota headers agree with meta. */
export function expectQuotaHeaders(
  res: { headers: Record<string, unknown> },
  meta: { remain: number; cost: number },
): void {
  expect(res.headers['x-api-remain']).toBe(String(meta.remain));
  expect(res.headers['x-api-cost']).toBe(String(meta.cost));
}
