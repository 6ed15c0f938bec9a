import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  {
    // The boundary (docs/architecture.md): the domain takes a db handle and plain data; it knows
    // nothing of HTTP or BullMQ. The edges (src/http/) and the worker (src/worker/) call it,
    // never the other way round. test/lint/boundary.test.ts keeps this rule honest.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['fastify', 'fastify-plugin', '@fastify/*', '@bull-board/*'],
              message: 'Domain code knows nothing of HTTP: move this to src/http/.',
            },
            {
              group: ['bullmq', 'ioredis'],
              message: 'Domain code knows nothing of BullMQ or Redis: move this to src/worker/.',
            },
            {
              regex: '^(\\.\\./)+(http|worker)(/|$)',
              message: 'Domain code imports neither an HTTP edge nor the worker: they call it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
