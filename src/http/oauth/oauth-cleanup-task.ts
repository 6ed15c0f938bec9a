import type { ApiApp } from '../app-context.js';
import { deleteExpiredOAuthRows } from '../../domain/oauth/cleanup.js';
import { IntervalTask } from '../../shared/time/interval-task.js';
import type { OAuthEdge } from './oauth-edge.js';

/**
 * Deletes expired codes, consents and unpublished signing keys every
 * OAUTH_CLEANUP_INTERVAL_SECONDS while the API listens (a server started with listen(); apps
 * only injected into, as in tests, run no timer). Each run is one indexed DELETE per table, so
 * several API processes running it is harmless.
 */
export function scheduleOAuthCleanup(app: ApiApp, edge: OAuthEdge): void {
  const seconds = edge.config.OAUTH_CLEANUP_INTERVAL_SECONDS;
  if (seconds === 0) return;
  const task = new IntervalTask(
    'oauth-cleanup',
    seconds * 1000,
    async () => {
      const deleted = await deleteExpiredOAuthRows(edge.db, edge.now());
      if (deleted.codes + deleted.consents + deleted.signingKeys > 0)
        edge.logger.info({ deleted }, 'expired OAuth codes and consents deleted');
    },
    edge.logger,
  );
  app.addHook('onListen', async () => task.start());
  app.addHook('onClose', async () => task.stop());
}
