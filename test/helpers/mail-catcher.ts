import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail server on the loopback that keeps every mail, and refuses gone@ for good (550). */
export class MailCatcher {
  readonly mails: ParsedMail[] = [];
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo: (address, _session, callback) => {
      if (address.address.startsWith('gone@')) {
        const err = Object.assign(new Error('no such mailbox'), { responseCode: 550 });
        return callback(err);
      }
      callback();
    },
    onData: (stream, _session, callback) => {
      simpleParser(stream).then(
        (mail) => {
          this.mails.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  to(address: string): ParsedMail[] {
    return this.mails.filter((m) => JSON.stringify(m.to).includes(address));
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** The path of an alert mail's link of `kind` (verify, unsubscribe) after `publicUrl`. */
export function alertLinkIn(
  mail: ParsedMail,
  publicUrl: string,
  kind: 'verify' | 'unsubscribe',
): string | undefined {
  const escaped = publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${escaped}(/alerts/${kind}/[A-Za-z0-9_-]+)`).exec(mail.text ?? '')?.[1];
}
