import type { BenchSuite } from '../bench-types.js';

/** Every benchmark suite, in the order they run. */
export const suites: readonly BenchSuite[] = [];
