import { pino, type Logger } from 'pino';

export type { Logger };

/** Logs go to stderr so that commands which write data to stdout (export) stay pipeable. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'emutrack' } }, pino.destination(2));
}
