import { buildDailyRecordsJob } from './build-daily-records.js';
import { deliverWebhookJob } from './deliver-webhook.js';
import { inferCirculationsJob } from './infer-circulations.js';
import { ingestObservationsJob } from './ingest-observations.js';
import { ingestTimetablesJob } from './ingest-timetables.js';
import { nightlyJob, nightlyServiceDay } from './nightly.js';
import { pullSourceJob } from './pull-source.js';
import { refreshReferenceModelsJob } from './refresh-reference-models.js';
import { renderDailyExportJob } from './render-daily-export.js';

export {
  buildDailyRecordsJob,
  deliverWebhookJob,
  inferCirculationsJob,
  ingestObservationsJob,
  ingestTimetablesJob,
  nightlyJob,
  nightlyServiceDay,
  pullSourceJob,
  refreshReferenceModelsJob,
  renderDailyExportJob,
};
export type { JobDefinition, JobRunInfo } from '../src/worker/job-definition.js';

/**
 * Every job the worker's JobQueues and JobWorkers serve, one queue each (queue name = job name).
 * deliverWebhookJob has a queue and workers of its own (src/worker/webhook-deliveries.ts), and
 * pullSourceJob a queue per source (src/worker/source-pulls.ts).
 */
export const allJobs = [
  ingestObservationsJob,
  ingestTimetablesJob,
  buildDailyRecordsJob,
  renderDailyExportJob,
  refreshReferenceModelsJob,
  nightlyJob,
  inferCirculationsJob,
] as const;
