import type { FastifyBaseLogger } from 'fastify';

type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogCall = (...args: unknown[]) => void;

/** A pino logger (the app's): it can say whether a level logs without writing anything. */
interface LevelAware {
  isLevelEnabled?(level: string): boolean;
}

/**
 * A request's logger (request.log) that makes its pino child, with the request id bound, only
 * when a line is actually written. Fastify makes a child per request, and pino's child runs the
 * redaction over its bindings each time: work every request paid for lines that, at the usual
 * levels (info and above, or warn in production), a served request never writes.
 */
class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger & LevelAware,
    private readonly bindings: Record<string, unknown>,
    private readonly options: Parameters<FastifyBaseLogger['child']>[1],
  ) {}

  private real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: Level, args: unknown[]): void {
    if (this.made === undefined && this.parent.isLevelEnabled?.(level) === false) return;
    (this.real()[level] as LogCall)(...args);
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }
  set level(level: string) {
    this.real().level = level;
  }
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}
  child(
    bindings: Record<string, unknown>,
    options?: Parameters<FastifyBaseLogger['child']>[1],
  ): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }
}

/**
 * Fastify's childLoggerFactory for the API: a lazy child (above) unless the route sets its own
 * log level or serializers, which only a real child carries.
 */
export function lazyRequestLoggerFactory(
  parent: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: ChildOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) {
    return parent.child(bindings, options);
  }
  return new LazyRequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
