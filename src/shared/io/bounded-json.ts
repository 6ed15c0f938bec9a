import { stat } from 'node:fs/promises';

/**
 * A JSON array is parsed whole, so a file of one is read only up to a size: 64 MiB is some
 * half a million rows of rail.re or a fleet a hundred times China's, and stays well within the
 * heap of a worker.
 */
export const MAX_JSON_ARRAY_BYTES = 64 * 1024 * 1024;

/** Why a JSON array file is too large to read (undefined when it is not). */
export async function jsonArrayTooLarge(
  file: string,
  limit: number = MAX_JSON_ARRAY_BYTES,
): Promise<string | undefined> {
  const { size } = await stat(file);
  if (size <= limit) return undefined;
  return `a JSON array of ${size} bytes is over the ${limit}-byte limit for JSON arrays; split the file or use the CSV form`;
}
