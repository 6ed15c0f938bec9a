import { describe, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { lazyRequestLoggerFactory } from '../../src/http/api/request-logger.js';
import { capturingLogger } from './helpers/api-harness.js';

describe('request logger (made on the first line written)', () => {
  it('writes lines at or above the level with the request bindings, and makes no child below it', () => {
    const { logger, lines } = capturingLogger();
    logger.level = 'warn';
    const parent = logger as unknown as FastifyBaseLogger;
    const child = vi.spyOn(parent, 'child');
    const log = lazyRequestLoggerFactory(parent, { reqId: 'r-1' }, {});
    log.info('not written');
    log.debug({ secret: 'x' }, 'not written either');
    expect(child).not.toHaveBeenCalled();
    log.warn({ token: 'tok' }, 'written');
    log.error('also written');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines().map((l) => [l.msg, l.reqId, l.token])).toEqual([
      ['written', 'r-1', '[Redacted]'],
      ['also written', 'r-1', undefined],
    ]);
    expect(log.level).toBe('warn');
  });

  it('gives a route that sets its own level a real child at once', () => {
    const { logger, lines } = capturingLogger();
    logger.level = 'warn';
    const log = lazyRequestLoggerFactory(
      logger as unknown as FastifyBaseLogger,
      { reqId: 'r-2' },
      {
        level: 'info',
      },
    );
    log.info('written at the route level');
    expect(lines().map((l) => [l.msg, l.reqId])).toEqual([['written at the route level', 'r-2']]);
  });
});
