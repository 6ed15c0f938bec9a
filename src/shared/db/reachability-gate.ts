import { EmutrackError } from '../errors/emutrack-error.js';

/** A query refused at once because the database was just found unreachable. */
export class DatabaseUnreachableError extends EmutrackError {
  constructor(cause: unknown) {
    super(
      'database_unreachable',
      `the database is unreachable (${(cause as Error)?.message ?? String(cause)})`,
      // The connection error itself, so that callers classifying errors by their cause chain
      // (the API's 503 `unavailable`) see what it is.
      { cause },
    );
  }
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Connection refused/i;

/** Whether an error from a query means the connection (not the statement) failed. */
export function isConnectionLoss(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && (CONNECTION_CODES.has(e.code) || /^08/.test(e.code))) {
    return true;
  }
  return typeof e?.message === 'string' && CONNECTION_MESSAGES.test(e.message);
}

export interface ReachabilityGateOptions {
  /** After a failed attempt, queries fail at once for this long before one tries again. Default 1 000. */
  retryMs?: number;
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
}

/**
 * Keeps a pool from making every caller wait out the connect timeout while the database is
 * down. Once a connection attempt fails, the database counts as down:
 * queries fail at once with DatabaseUnreachableError, except one probe at a time, at most one
 * every `retryMs`, which tries for real. The first probe that connects brings the database back
 * up. So a request making several queries in a row waits for one connect timeout at most, and
 * service resumes within `retryMs` of the database coming back. While the database is up, the
 * gate lets everything through untouched.
 */
export class ReachabilityGate {
  private lastFailure: { at: number; error: unknown } | undefined;
  private probing = false;
  private readonly retryMs: number;
  private readonly clock: () => number;

  constructor(options: ReachabilityGateOptions = {}) {
    this.retryMs = options.retryMs ?? 1_000;
    this.clock = options.clock ?? Date.now;
  }

  get isDown(): boolean {
    return this.lastFailure !== undefined;
  }

  /**
   * Runs a connection attempt through the gate: at once when the database is up; as the probe
   * when it is down and a probe is due; otherwise refuses with DatabaseUnreachableError.
   */
  async connect<T>(attempt: () => Promise<T>): Promise<T> {
    const failure = this.lastFailure;
    if (failure === undefined) return this.observe(attempt);
    if (this.probing || this.clock() - failure.at < this.retryMs) {
      throw new DatabaseUnreachableError(failure.error);
    }
    this.probing = true;
    try {
      return await this.observe(attempt);
    } finally {
      this.probing = false;
    }
  }

  private async observe<T>(attempt: () => Promise<T>): Promise<T> {
    try {
      const result = await attempt();
      this.lastFailure = undefined;
      return result;
    } catch (err) {
      this.lastFailure = { at: this.clock(), error: err };
      throw err;
    }
  }
}
