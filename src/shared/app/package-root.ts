import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root directory, whether running from src/ (tests, tsx) or dist/src/ (built). */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const parent = path.dirname(dir);
    if (path.basename(dir) === 'src') {
      return path.basename(parent) === 'dist' ? path.dirname(parent) : parent;
    }
    if (parent === dir)
      throw new Error('cannot locate the package root (no src/ above this module)');
    dir = parent;
  }
}
