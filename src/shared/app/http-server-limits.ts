import type { Config } from '../config/config.js';

/**
 * Fastify options that bound how long one client may hold a connection with an unfinished
 * request. Without them (Fastify's requestTimeout is 0, no limit) a body sent one byte every ten
 * seconds keeps its connection, and a graceful shutdown waiting for it, open for ever: the
 * "slow body" half of Slowloris. Node checks the running requests against these every
 * `connectionsCheckingInterval`, so a request is cut within the timeout plus that interval.
 */
export function httpServerLimits(config: Config) {
  return {
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: Math.min(5_000, config.HTTP_HEADERS_TIMEOUT_MS),
    },
  };
}

/** What `app.close()` needs of the server: its listening socket and its connections. */
interface ClosableApp {
  close(): Promise<unknown>;
  server: { closeAllConnections(): void };
}

/**
 * Closes an app gracefully, but within `deadlineMs`: running requests may finish until then, and
 * the connections still open at the deadline (a client that never finishes its request, or
 * never reads its answer) are closed so the process can stop.
 */
export async function closeWithin(app: ClosableApp, deadlineMs: number): Promise<void> {
  const timer = setTimeout(() => app.server.closeAllConnections(), deadlineMs);
  timer.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}
