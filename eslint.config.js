import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const HTTP_PACKAGES = {
  regex: '^(fastify|fastify-plugin)(/|$)|^@(fastify|bull-board)/',
  message: 'Domain code and jobs know nothing of HTTP: move this to src/http/.',
};
const QUEUE_PACKAGES = {
  regex: '^(bullmq|ioredis)(/|$)',
  message: 'Domain code and jobs know nothing of BullMQ or Redis: move this to src/worker/.',
};
/** A relative import that climbs out of jobs/ anywhere but the domain, shared code and the job type. */
const JOB_IMPORTS = {
  regex: '^(\\.\\./)+(?!\\.\\./)(?!src/(domain|shared)/|src/worker/job-definition\\.js$)',
  message: 'A job imports src/domain/, src/shared/ and src/worker/job-definition.js only.',
};

/** A relative import that climbs up to one of `folders` (src/<folder>, or the top-level jobs/). */
function upTo(folders, message) {
  return { regex: `^(\\.\\./)+(${folders.join('|')})(/|$)`, message };
}

/**
 * The imports `files` may not make, static (no-restricted-imports, type-only ones included) and
 * dynamic: the core rule does not look at import(), so an import() whose source is a string
 * literal is matched by the same expression (no-restricted-syntax).
 */
function forbidImports(files, rules) {
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: rules.map(({ regex, message }) => ({ regex, message })) },
      ],
      'no-restricted-syntax': [
        'error',
        ...rules.map(({ regex, message }) => ({
          selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`,
          message,
        })),
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', '.data/**', 'bench-data/**', 'coverage/**', '.prof/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Type-aware: a promise nobody awaits or handles, or one passed where a plain callback is
    // expected (an event handler, forEach), loses its failure silently.
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // The boundary (docs/architecture.md): the domain takes a db handle and plain data; it knows
  // nothing of HTTP or BullMQ. The edges (src/http/) and the worker (src/worker/) call it,
  // never the other way round; src/shared/ is below all of them; a job definition in jobs/
  // calls the domain and nothing of the runtime but its own type; the HTTP edge does not reach
  // into the worker. test/lint/boundary.test.ts keeps these rules honest.
  forbidImports(
    ['src/domain/**/*.ts'],
    [
      HTTP_PACKAGES,
      QUEUE_PACKAGES,
      upTo(
        ['http', 'worker', 'cli', 'jobs'],
        'Domain code imports no edge, worker, command or job: they call it.',
      ),
    ],
  ),
  forbidImports(
    ['src/shared/**/*.ts'],
    [
      upTo(
        ['domain', 'http', 'worker', 'cli', 'jobs'],
        'Shared code imports nothing above it: the domain, the edges, the worker and jobs call it.',
      ),
    ],
  ),
  forbidImports(
    ['src/http/**/*.ts'],
    [
      upTo(
        ['worker'],
        'The HTTP edge does not import the worker: what both need lives in src/shared/ or src/domain/.',
      ),
    ],
  ),
  forbidImports(['jobs/**/*.ts'], [HTTP_PACKAGES, QUEUE_PACKAGES, JOB_IMPORTS]),
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // Loaded with `node --import` before any TypeScript runs, so plain JavaScript for Node.
    files: ['test/helpers/*.mjs'],
    languageOptions: { globals: { process: 'readonly', globalThis: 'readonly' } },
  },
);
