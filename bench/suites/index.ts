import type { BenchSuite } from '../bench-types.js';
import { apiSuite } from './api.js';
import { circulationSuite } from './circulation.js';
import { feedSuite } from './feed.js';
import { freshPagesSuite } from './fresh-pages.js';
import { historySuite } from './history.js';
import { lighthouseSuite } from './lighthouse.js';
import { pipelineSuite } from './pipeline.js';
import { searchSuite } from './search.js';
import { siteSuite } from './site.js';
import { sourcesSuite } from './sources.js';
import { staleDaysSuite } from './stale-days.js';
import { uploadsSuite } from './uploads.js';
import { webSuite } from './web.js';

/** Every benchmark suite, in the order they run. */
export const suites: readonly BenchSuite[] = [
  pipelineSuite,
  apiSuite,
  freshPagesSuite,
  circulationSuite,
  historySuite,
  searchSuite,
  siteSuite,
  lighthouseSuite,
  webSuite,
  uploadsSuite,
  staleDaysSuite,
  feedSuite,
  sourcesSuite,
];
