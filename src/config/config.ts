import { z } from 'zod';

/** A configuration value that failed validation; names the variable so start-up can say which. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`configuration: ${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .refine(
      (v) => {
        if (v === undefined) return true;
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      { message: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}` },
    );

const int = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

const envSchema = z.object({
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  /** Where the embedded database (PGlite) keeps its files when DATABASE_URL is unset. */
  DATA_DIR: z.string().min(1).default('./.data'),
  PORT: int(3000, 1, 65535),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Prefix of every BullMQ key; tests give each run its own. */
  QUEUE_PREFIX: z
    .string()
    .min(1)
    .regex(/^[^:]+$/, 'may not contain ":"')
    .default('emutrack'),
  /** Cron pattern (Asia/Shanghai) of the nightly build-and-export flow for the day that just ended. */
  NIGHTLY_CRON: z.string().min(1).default('0 0 * * *'),
  /** Directory the ingest job scans for new observation files; unset = no inbox. */
  INBOX_DIR: z.string().min(1).optional(),
  WORKER_CONCURRENCY: int(2, 1, 64),
  /** How long a worker waits for running jobs on SIGTERM before it exits anyway. */
  SHUTDOWN_TIMEOUT_MS: int(30_000, 0),
  JOB_ATTEMPTS: int(5, 1, 100),
  JOB_BACKOFF_MS: int(5_000, 0),
  /** Sightings needed for a record's confirmed bit. */
  CONFIRM_MIN_SUPPORT: int(2, 1, 1000),
  PG_POOL_MAX: int(10, 1, 200),
});

export type Config = z.infer<typeof envSchema>;

/** Reads and validates the environment once; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    const value = env[variable];
    throw new ConfigError(
      variable,
      `${issue.message}${value === undefined ? '' : ` (got ${JSON.stringify(value)})`}`,
    );
  }
  return result.data;
}
