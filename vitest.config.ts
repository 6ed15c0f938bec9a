import { defineConfig } from 'vitest/config';
import { ISOLATED_TEST_FILES } from './test/helpers/isolated-test-files.js';

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more forks only contend. Every file has its own database and queue prefix.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...ISOLATED_TEST_FILES, '**/node_modules/**'],
          // Files share their worker's loaded modules: importing the app once per worker, not once
          // per file, is most of the suite's import time. What a file may not do in a shared
          // worker is listed in test/helpers/isolated-test-files.ts.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: [...ISOLATED_TEST_FILES], isolate: true },
      },
    ],
  },
});
