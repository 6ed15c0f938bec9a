import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one closing line, "Tests: N passed, N failed, N skipped", after vitest's own summary:
 * the plain form CI tools read, whatever the runner.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
  ): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of testModules) {
      for (const test of m.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load, or whose hook failed (its tests then show as skipped), is a
      // failure all the same.
      const testFailed = [...m.children.allTests()].some((t) => t.result().state === 'failed');
      if (m.state() === 'failed' && !testFailed) failed++;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
