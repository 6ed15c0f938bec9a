import { Counter, Histogram, type Registry } from 'prom-client';

/** Upper bounds (seconds) of the request latency buckets: 5 ms to 10 s. */
export const HTTP_LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface HttpObservation {
  /** The OpenAPI operationId, else the route pattern, else "unmatched". */
  operation: string;
  method: string;
  status: number;
  seconds: number;
}

/**
 * What the API's requests look like from the outside: latency per operation and status, quota
 * refusals (429) and credential failures (401/403) per operation.
 */
export class HttpMetrics {
  private readonly latency: Histogram<'operation' | 'method' | 'status'>;
  private readonly quotaRefusals: Counter<'operation'>;
  private readonly credentialFailures: Counter<'operation' | 'status'>;

  constructor(registry: Registry) {
    this.latency = new Histogram({
      name: 'emutrack_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent, per operation and status.',
      labelNames: ['operation', 'method', 'status'],
      buckets: HTTP_LATENCY_BUCKETS,
      registers: [registry],
    });
    this.quotaRefusals = new Counter({
      name: 'emutrack_quota_refusals_total',
      help: 'Requests refused for want of quota (429 rate_limited), per operation.',
      labelNames: ['operation'],
      registers: [registry],
    });
    this.credentialFailures = new Counter({
      name: 'emutrack_credential_failures_total',
      help: 'Requests refused for their credentials (401 missing or bad, 403 not allowed).',
      labelNames: ['operation', 'status'],
      registers: [registry],
    });
  }

  observe(o: HttpObservation): void {
    const status = String(o.status);
    this.latency.observe({ operation: o.operation, method: o.method, status }, o.seconds);
    if (o.status === 429) this.quotaRefusals.inc({ operation: o.operation });
    if (o.status === 401 || o.status === 403) {
      this.credentialFailures.inc({ operation: o.operation, status });
    }
  }
}
