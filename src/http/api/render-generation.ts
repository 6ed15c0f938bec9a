import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the API's modules (this file's: src/http/api, or its build). */
const API_DIR = path.dirname(fileURLToPath(import.meta.url));

let generation: string | undefined;

/**
 * A digest of the API's own code as this process runs it (every module under src/http/api and
 * its routes, read once): part of every kept page's ETag (PageCache). A page's bytes are a
 * function of the data at its version and of the code that writes them, so a deploy that
 * changes how a page is written must change its tag even though no data version moved;
 * otherwise a client holding the old bytes would get 304 for them. Any change to these modules
 * moves it, comments included: at worst one full answer instead of a 304 per page after such
 * a deploy, never an old answer. Processes running the same code agree on it.
 */
export function renderGeneration(): string {
  if (generation === undefined) {
    const hash = createHash('sha256');
    for (const file of codeFiles(API_DIR)) {
      hash.update(path.relative(API_DIR, file)).update('\u0000').update(readFileSync(file));
    }
    generation = hash.digest('base64url').slice(0, 16);
  }
  return generation;
}

/** The module files under `dir`, in a fixed order. */
function codeFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...codeFiles(full));
    else if (/\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files.sort();
}
