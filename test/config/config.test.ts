import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/shared/config/config.js';

describe('configuration', () => {
  it('has defaults that need no environment at all (the embedded default)', () => {
    const c = loadConfig({});
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.PORT).toBe(3000);
    expect(c.NIGHTLY_CRON).toBe('0 0 * * *');
    expect(c.REFERENCE_MODEL_WINDOW_DAYS).toBe(14);
    expect(c.REFERENCE_MODEL_MIN_SHARE).toBe(0.3);
  });

  it('treats empty URLs as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: ' ' }).DATABASE_URL).toBeUndefined();
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ QUEUE_PREFIX: 'a:b' }, 'QUEUE_PREFIX'],
    [{ WORKER_CONCURRENCY: '0' }, 'WORKER_CONCURRENCY'],
    [{ REFERENCE_MODEL_WINDOW_DAYS: '0' }, 'REFERENCE_MODEL_WINDOW_DAYS'],
    [{ REFERENCE_MODEL_MIN_SHARE: '1.5' }, 'REFERENCE_MODEL_MIN_SHARE'],
  ])('names the bad variable: %j', (env, variable) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as Error).message).toContain(variable);
  });
});
