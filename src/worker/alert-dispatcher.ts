import type { AppContext } from '../shared/app/app-context.js';
import type { DbListener } from '../shared/db/db.js';
import {
  claimDueAlerts,
  dispatchAlerts,
  recordOutcome,
  type ClaimedAlerts,
  type SendOutcome,
} from '../domain/alerts/alert-dispatch.js';
import {
  alertMail,
  createMailer,
  pushPayload,
  sendMail,
  sendPush,
  type Mailer,
} from '../domain/alerts/alert-channels.js';
import { unsubscribeTokenOf } from '../domain/alerts/subscriptions.js';
import { loadVapidKeys, type VapidKeys } from '../domain/alerts/vapid-keys.js';
import { resolveKeySecret } from '../domain/oauth/key-secret.js';
import { newMessageId } from '../domain/webhooks/webhook-secret.js';
import type { HostLookup } from '../domain/oembed/address-guard.js';
import { IntervalTask } from '../shared/time/interval-task.js';
import type { WebhookDeliveries } from './webhook-deliveries.js';
import { WEBHOOK_CHANNEL } from './webhook-dispatcher.js';

export interface AlertDispatcherOptions {
  pollMs?: number;
  /** The webhook deliveries alerts by webhook are handed to (else the webhooks' sweep takes them). */
  webhooks?: WebhookDeliveries;
  /** Tests stand in a resolver for push endpoints. */
  lookupHost?: HostLookup;
  /** How long a claimed alert is kept from other senders (ms; default 5 min). */
  leaseMs?: number;
}

/**
 * The alerts' half of the worker: reads the change feed into alert deliveries (alert-dispatch.ts)
 * and sends those due, by e-mail, Web Push or a webhook, every ALERT_POLL_MS and when Postgres
 * notifies that records changed. Runs in every worker: the dispatch takes turns on the place's
 * row lock and the senders claim rows with SKIP LOCKED, so each alert goes out once.
 */
export class AlertDispatcher {
  private readonly task: IntervalTask;
  private listener: DbListener | undefined;
  private mailer: Mailer | undefined;
  private vapid: Promise<VapidKeys> | undefined;
  private stopped = true;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: AlertDispatcherOptions = {},
  ) {
    this.task = new IntervalTask(
      'alert dispatch',
      options.pollMs ?? ctx.config.ALERT_POLL_MS,
      () => this.runOnce(),
      ctx.logger,
    );
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    const { db, logger } = this.ctx;
    if (db.listen)
      this.listener = await db
        .listen({
          channels: [WEBHOOK_CHANNEL],
          onNotification: () => this.task.wake(),
          onLost: () => (this.listener = undefined),
        })
        .catch((err: unknown) => {
          logger.warn({ err: (err as Error).message }, 'alert notices unavailable; polling');
          return undefined;
        });
    this.task.start();
  }

  wake(): void {
    this.task.wake();
  }

  async runOnce(now = new Date()): Promise<void> {
    const { db, config } = this.ctx;
    for (;;) {
      const r = await dispatchAlerts(db, { now, digestHour: config.ALERT_DIGEST_HOUR });
      if (!r.more || this.stopped) break;
    }
    for (;;) {
      const claimed = await claimDueAlerts(db, { now, leaseMs: this.options.leaseMs ?? 300_000 });
      if (claimed.length === 0) break;
      for (const c of claimed) {
        const result = await this.send(c).catch((err: unknown): SendOutcome => ({
          outcome: 'retry',
          error: (err as Error).message,
        }));
        if (result.outcome !== 'sent')
          this.ctx.logger.info(
            { subscription: c.subscription.publicId, outcome: result.outcome, err: result.error },
            'alert not sent',
          );
        await recordOutcome(db, c, result, {
          backoffMs: config.JOB_BACKOFF_MS,
          maxAttempts: config.ALERT_MAX_ATTEMPTS,
        });
      }
      if (this.stopped) break;
    }
  }

  private async send(c: ClaimedAlerts): Promise<SendOutcome> {
    const { config, db } = this.ctx;
    const alerts = c.deliveries.map((d) => d.data);
    const publicUrl = config.PUBLIC_URL.replace(/\/$/, '');
    const s = c.subscription;
    if (s.channel === 'email') {
      if (!config.SMTP_URL) return { outcome: 'retry', error: 'SMTP_URL is not set' };
      this.mailer ??= createMailer({
        smtpUrl: config.SMTP_URL,
        from: config.ALERT_MAIL_FROM,
        publicUrl,
      });
      const token = await unsubscribeTokenOf(db, s.publicId);
      const unsubscribe = `${publicUrl}/alerts/unsubscribe/${token}`;
      return sendMail(this.mailer, alertMail(s.address!, alerts, { publicUrl, unsubscribe }));
    }
    if (s.channel === 'webpush') {
      this.vapid ??= loadVapidKeys(db, async () => {
        const k = await resolveKeySecret({
          configured: config.OAUTH_KEY_SECRET,
          dataDir: config.DATA_DIR,
        });
        return k.secret;
      });
      this.vapid.catch(() => (this.vapid = undefined));
      return sendPush(s.push!, pushPayload(alerts[0]!, publicUrl), {
        vapid: await this.vapid,
        subject: `mailto:${config.ALERT_MAIL_FROM}`,
        allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        lookupHost: this.options.lookupHost,
      });
    }
    // A webhook: one signed delivery of the endpoint, retried by the webhooks' own queue.
    const body = JSON.stringify({
      type: 'alert',
      timestamp: new Date().toISOString(),
      data: alerts[0],
    });
    const r = await db.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (message_id, endpoint_id, event_type, body)
       VALUES ($1, $2, 'alert', $3) RETURNING id::text`,
      [newMessageId(), s.webhookEndpointId, body],
    );
    if (this.options.webhooks) {
      await this.options.webhooks.deliver([r.rows[0]!.id]);
      await db.query('UPDATE webhook_deliveries SET enqueued_at = now() WHERE id = $1', [
        r.rows[0]!.id,
      ]);
    }
    return { outcome: 'sent' };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.task.stop();
    await this.listener?.close();
    this.mailer?.close();
  }
}
