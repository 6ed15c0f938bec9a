import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import type { Queryable } from '../../../shared/db/db.js';
import type { Logger } from '../../../shared/log/logger.js';
import type { QueueList } from '../../../shared/queues/open-queues.js';
import { HttpMetrics } from './http-metrics.js';
import { readQueueDepths } from './queue-depths.js';
import { readStoredMetrics, type StoredFamily } from './stored-metrics.js';

export interface OperationsMetricsOptions {
  /** Where the stored families (job runs, last days, inference) are read. */
  db: Queryable;
  /** The queues whose depths are shown; absent (no Redis) = the family has no samples. */
  queues?: QueueList;
  /** Told when a source cannot be read (its families are then left out of that scrape). */
  logger: Pick<Logger, 'warn'>;
  /** Add Node's process metrics (CPU, RSS, heap, event loop lag). Default true. */
  processMetrics?: boolean;
}

/**
 * The API process's Prometheus metrics: its own requests (HttpMetrics), the process itself, and,
 * read at each scrape, queue depths from Redis and what the workers recorded in the database.
 */
export class OperationsMetrics {
  readonly registry = new Registry();
  readonly http: HttpMetrics;

  constructor(private readonly options: OperationsMetricsOptions) {
    this.http = new HttpMetrics(this.registry);
    if (options.processMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry, prefix: 'emutrack_' });
    }
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition of every family. A source that fails is logged and left out. */
  async render(): Promise<string> {
    const [stored, depths] = await Promise.all([
      readStoredMetrics(this.options.db).catch((err: Error) => {
        this.options.logger.warn({ err: err.message }, 'metrics: database not readable');
        return [] as StoredFamily[];
      }),
      readQueueDepths(this.options.queues).catch((err: Error) => {
        this.options.logger.warn({ err: err.message }, 'metrics: queue depths not readable');
        return undefined;
      }),
    ]);
    const scrape = new Registry();
    for (const family of depths ? [depths, ...stored] : stored) {
      // prom-client prints any object with name, help, type and get(): the stored families are
      // formatted (escaping, label order) exactly like the live ones.
      scrape.registerMetric({
        name: family.name,
        help: family.help,
        get: async () => ({ ...family, aggregator: 'sum' }),
      } as unknown as Metric);
    }
    return Registry.merge([this.registry, scrape]).metrics();
  }
}
