import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Paths pino replaces with "[Redacted]" in every log line: credentials in request headers (bearer
 * keys, the session cookie), cookies set in answers, and secrets in logged objects (passwords, keys,
 * tokens), at the top level or one object down. Fastify's own request lines carry no headers; this
 * keeps it so when someone logs a request, its headers or a body.
 */
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'authorization',
  'cookie',
  'password',
  'currentPassword',
  'newPassword',
  'apiKey',
  'secret',
  'token',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.apiKey',
  '*.secret',
  '*.token',
];

/** Logs go to stderr so that commands which write data to stdout (export) stay pipeable. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(
    { level, base: { service: 'emutrack' }, redact: LOG_REDACT_PATHS },
    pino.destination(2),
  );
}
