import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../shared/app/package-root.js';

/** package.json's version (the one `npm` and the image carry), for `emutrack --version`. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
