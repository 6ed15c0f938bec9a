import nodemailer, { type SendMailOptions } from 'nodemailer';
import webPush from 'web-push';
import type { HostLookup } from '../oembed/address-guard.js';
import { postWebhook } from '../webhooks/webhook-post.js';
import { WebhookError } from '../webhooks/webhook-error.js';
import { describeAlert, type AlertData } from './alert-events.js';
import type { SendOutcome } from './alert-dispatch.js';
import type { PushSubscriptionJson } from './subscriptions.js';
import type { VapidKeys } from './vapid-keys.js';

/** The page an alert is about (the web app's paths, kept by its link rules). */
export function alertPagePath(d: Pick<AlertData, 'kind' | 'code'>): string {
  const base = d.kind === 'train' ? 'train' : d.kind === 'emu' ? 'emu' : 'station';
  return `/${base}/${encodeURIComponent(d.code)}`;
}

export interface MailOptions {
  /** SMTP_URL. */
  smtpUrl: string;
  from: string;
  /** PUBLIC_URL: links in mails are absolute. */
  publicUrl: string;
}

export interface Mailer {
  send(message: SendMailOptions): Promise<void>;
  close(): void;
}

export function createMailer(options: MailOptions): Mailer {
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    send: async (message) => {
      await transport.sendMail({ from: options.from, ...message });
    },
    close: () => transport.close(),
  };
}

/** The first mail of an e-mail subscription: nothing else is sent until its link is followed. */
export function verificationMail(
  to: string,
  subject: { kind: AlertData['kind']; code: string },
  links: { verify: string; unsubscribe: string },
): SendMailOptions {
  return {
    to,
    subject: `emutrack: 确认订阅 ${subject.code} / confirm alerts for ${subject.code}`,
    text: [
      `请打开以下链接，确认接收 ${subject.code} 的提醒：`,
      `Open this link to receive alerts about ${subject.code}:`,
      links.verify,
      '',
      `未曾订阅？忽略此邮件即可，或退订 / Not you? Ignore this mail, or unsubscribe: ${links.unsubscribe}`,
    ].join('\n'),
    headers: unsubscribeHeaders(links.unsubscribe),
  };
}

/** RFC 2369 and RFC 8058: mail clients show an unsubscribe button that POSTs to the link. */
function unsubscribeHeaders(link: string): Record<string, string> {
  return {
    'List-Unsubscribe': `<${link}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };
}

/** An alert mail (or a digest of several): what changed, the page, the unsubscribe link. */
export function alertMail(
  to: string,
  alerts: readonly AlertData[],
  links: { publicUrl: string; unsubscribe: string },
): SendMailOptions {
  const first = alerts[0]!;
  const lines = alerts.flatMap((a) => {
    const words = describeAlert(a);
    return [words.zh, words.en, `${links.publicUrl}${alertPagePath(a)}`, ''];
  });
  const subject =
    alerts.length === 1
      ? describeAlert(first).en
      : `${first.code}: ${alerts.length} alerts / ${alerts.length} 条提醒`;
  return {
    to,
    subject: `emutrack: ${subject}`,
    text: [...lines, `退订 / Unsubscribe: ${links.unsubscribe}`].join('\n'),
    headers: unsubscribeHeaders(links.unsubscribe),
  };
}

/**
 * Sends a mail. A refusal the server says is permanent (a 5xx: no such mailbox, the domain does
 * not take mail) is a dead address; anything else (4xx, a lost connection) is tried again.
 */
export async function sendMail(mailer: Mailer, message: SendMailOptions): Promise<SendOutcome> {
  try {
    await mailer.send(message);
    return { outcome: 'sent' };
  } catch (err) {
    const code = (err as { responseCode?: number }).responseCode;
    const error = `SMTP: ${(err as Error).message}`;
    if (code !== undefined && code >= 500 && code < 600) return { outcome: 'dead', error };
    return { outcome: 'retry', error };
  }
}

export interface PushOptions {
  vapid: VapidKeys;
  /** The VAPID contact: mailto: of ALERT_MAIL_FROM. */
  subject: string;
  allowLoopback: boolean;
  timeoutMs: number;
  lookupHost?: HostLookup;
}

/** What a notification carries: the service worker shows `title` and `body`, opens `url`. */
export function pushPayload(alert: AlertData, publicUrl: string): string {
  const words = describeAlert(alert);
  return JSON.stringify({
    title: `emutrack: ${alert.code}`,
    body: `${words.zh}\n${words.en}`,
    url: `${publicUrl}${alertPagePath(alert)}`,
    tag: `${alert.event}:${alert.code}`,
  });
}

/**
 * Sends one Web Push message (RFC 8030), encrypted for the subscription (RFC 8291, aes128gcm)
 * and signed with the server's VAPID key (RFC 8292) by the web-push library, through the
 * webhooks' address guard (resolved once, pinned, public addresses only). 404 and 410 mean the
 * subscription is gone: a dead subscription.
 */
export async function sendPush(
  subscription: PushSubscriptionJson,
  payload: string,
  options: PushOptions,
): Promise<SendOutcome> {
  const details = webPush.generateRequestDetails(subscription, payload, {
    vapidDetails: {
      subject: options.subject,
      publicKey: options.vapid.publicKey,
      privateKey: options.vapid.privateKey,
    },
    TTL: 86_400,
    contentEncoding: 'aes128gcm',
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers))
    if (name.toLowerCase() !== 'content-length') headers[name.toLowerCase()] = String(value);
  let result;
  try {
    result = await postWebhook(details.endpoint, headers, details.body ?? Buffer.alloc(0), {
      allowLoopback: options.allowLoopback,
      timeoutMs: options.timeoutMs,
      lookupHost: options.lookupHost,
    });
  } catch (err) {
    if (err instanceof WebhookError) return { outcome: 'retry', error: `push: ${err.message}` };
    throw err;
  }
  if ('error' in result) return { outcome: 'retry', error: `push: ${result.error}` };
  if (result.status >= 200 && result.status < 300) return { outcome: 'sent' };
  if (result.status === 404 || result.status === 410)
    return {
      outcome: 'dead',
      error: `the push service answered ${result.status}: subscription gone`,
    };
  return { outcome: 'retry', error: `the push service answered ${result.status}` };
}
