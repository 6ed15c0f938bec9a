#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm ci` (the `prepare` script); this shim only points at it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('emutrack: dist/ is missing; run `npm run build` (npm ci does it for you)');
  process.exit(1);
}
await import(entry.href);
