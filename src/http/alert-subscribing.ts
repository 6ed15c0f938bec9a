import { createMailer, verificationMail, type Mailer } from '../domain/alerts/alert-channels.js';
import {
  createSubscription,
  deleteSubscription,
  type AlertSubscription,
  type SubscriptionInput,
} from '../domain/alerts/subscriptions.js';
import type { Config } from '../shared/config/config.js';
import type { Db } from '../shared/db/db.js';
import { EmutrackError } from '../shared/errors/emutrack-error.js';

/** What subscribing logs to (a request's logger). */
interface WarnLogger {
  warn(obj: object, msg: string): void;
}

/** Why a subscription could not be made now (no mail server, or it did not take the mail). */
export class AlertMailUnavailableError extends EmutrackError {
  constructor(message: string) {
    super('alert_mail_unavailable', message);
  }
}

/**
 * Subscribes (the API's PUT and the page's form), mailing an e-mail subscription's verification
 * link before answering. A mail that cannot be sent takes the subscription back, so the reader
 * simply tries again. One mailer per process part, made on first need.
 */
export class AlertSubscribing {
  private mailer: Mailer | undefined;
  private readonly publicUrl: string;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {
    this.publicUrl = config.PUBLIC_URL.replace(/\/$/, '');
  }

  get mailConfigured(): boolean {
    return this.config.SMTP_URL !== undefined;
  }

  async subscribe(
    userId: string,
    input: SubscriptionInput,
    logger: WarnLogger,
  ): Promise<AlertSubscription> {
    const { config, db } = this;
    const created = await createSubscription(db, userId, input, {
      maxPerUser: config.ALERT_MAX_SUBSCRIPTIONS_PER_USER,
      allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
    });
    const { subscription, verificationToken, unsubscribeToken } = created;
    if (!verificationToken) return subscription;
    try {
      if (!config.SMTP_URL) throw new Error('SMTP_URL is not set');
      this.mailer ??= createMailer({
        smtpUrl: config.SMTP_URL,
        from: config.ALERT_MAIL_FROM,
        publicUrl: this.publicUrl,
      });
      await this.mailer.send(
        verificationMail(subscription.target, subscription, {
          verify: `${this.publicUrl}/alerts/verify/${verificationToken}`,
          unsubscribe: `${this.publicUrl}/alerts/unsubscribe/${unsubscribeToken}`,
        }),
      );
    } catch (err) {
      await deleteSubscription(db, userId, subscription.id).catch(() => {});
      logger.warn({ err: (err as Error).message }, 'verification mail not sent');
      throw new AlertMailUnavailableError(
        'address: the verification mail could not be sent; try again later',
      );
    }
    return subscription;
  }

  close(): void {
    this.mailer?.close();
  }
}
