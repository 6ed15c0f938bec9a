import { EmutrackError } from '../../../shared/errors/emutrack-error.js';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from '../../../shared/log/logger.js';
import { redactUrl } from '../../../shared/log/redact-url.js';
import {
  parsePhpQuery,
  phpInputLimitOf,
  PHP_INPUT_LIMITS,
  type PhpValue,
} from '../rest/php-query.js';

/**
 * PHP's `json_decode` default depth, which WordPress's REST server uses: a JSON body nested
 * deeper is `rest_invalid_json` there, and here (anything walking it recursively, such as
 * JSON.stringify, would otherwise run out of stack: a 500).
 */
export const JSON_MAX_DEPTH = 512;

/** A request past one of PHP's input limits: 400 (413 for the body size, from Fastify), naming it. */
export class InputLimitError extends EmutrackError {
  readonly statusCode = 400;
  constructor(
    /** The limit's PHP name (max_input_vars, max_input_nesting_level): the error's code. */
    code: string,
    message: string,
  ) {
    super(code, message);
  }
}

/** Whether a parsed JSON value nests deeper than `max` (iterative: no call stack). */
export function jsonDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > max) return true;
    const children = Array.isArray(item.value) ? item.value : Object.values(item.value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, depth: item.depth + 1 });
    }
  }
  return false;
}

/** A JSON body: `{}` when empty, `invalid` when it does not parse or nests past JSON_MAX_DEPTH. */
export function parseJsonBody<T>(text: string, invalid: T): unknown {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid;
  }
  return jsonDeeperThan(value, JSON_MAX_DEPTH) ? invalid : value;
}

/** A form body read as PHP reads it; past max_input_vars or the nesting level, a 400 naming it. */
export function parseFormBody(
  text: string,
  done: (err: Error | null, body?: Record<string, PhpValue>) => void,
): void {
  const parsed = parsePhpQuery(text);
  const limit = phpInputLimitOf(parsed);
  if (limit) return done(new InputLimitError(limit.limit, `Form body refused: ${limit.message}.`));
  done(null, parsed);
}

/**
 * The site's answers to input it will not read: a query string past PHP's limits is refused
 * before routing (the router's query parser may not throw, so the parse result carries the limit
 * and this hook answers), and every error with a 4xx status (a parser's limit, Fastify's 413 for
 * a body past its limit, a malformed content type) is answered in WordPress's error shape,
 * `{code, message, data: {status}}`. Anything else is logged and answered as WordPress answers a
 * fatal error, without the error's text (which may hold a caller's input or an internal detail).
 */
export function registerInputLimits(app: FastifyInstance, logger: Logger): void {
  app.addHook('onRequest', (request, reply, done) => {
    const limit = phpInputLimitOf(request.query);
    if (!limit) return done();
    void reply
      .code(400)
      .header('content-type', 'application/json; charset=UTF-8')
      .send(
        JSON.stringify({
          code: limit.limit,
          message: `Query string refused: ${limit.message}.`,
          data: { status: 400, limit: limit.limit },
        }),
      );
  });
  // Fastify's own 404 logs the whole URL ("Route GET:/x?pwd=... not found"): the same answer,
  // with the URL's secrets redacted in the log line and the body.
  app.setNotFoundHandler((request, reply) => {
    const url = redactUrl(request.url);
    request.log.info(`Route ${request.method}:${url} not found`);
    return reply.code(404).send({
      message: `Route ${request.method}:${url} not found`,
      error: 'Not Found',
      statusCode: 404,
    });
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'post_max_size'
          : (error.code ?? 'invalid_request');
      const message =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? `Request body refused: larger than the limit of ${PHP_INPUT_LIMITS.postMaxSizeBytes} bytes for forms (post_max_size) or the site's body limit.`
          : error.message;
      return reply
        .code(status)
        .header('content-type', 'application/json; charset=UTF-8')
        .send(JSON.stringify({ code, message, data: { status } }));
    }
    logger.error(
      { err: error, url: redactUrl(request.url), method: request.method },
      'site request failed',
    );
    return reply
      .code(500)
      .header('content-type', 'application/json; charset=UTF-8')
      .send(
        JSON.stringify({
          code: 'internal_server_error',
          message: 'There has been a critical error on this website.',
          data: { status: 500 },
        }),
      );
  });
}
