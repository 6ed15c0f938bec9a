import { ensurePrerequisites, PrerequisiteError } from './prerequisites.js';

/** `npm test`'s pretest: the prerequisites before the typecheck, lint and vitest begin. */
try {
  ensurePrerequisites();
} catch (err) {
  if (!(err instanceof PrerequisiteError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exitCode = 1;
}
