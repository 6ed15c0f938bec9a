import { isIP } from 'node:net';
import { z } from 'zod';
import { EmutrackError } from '../errors/emutrack-error.js';

/** A configuration value that failed validation; names the variable so start-up can say which. */
export class ConfigError extends EmutrackError {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super('config_invalid', `configuration: ${variable}: ${detail}`);
  }
}

/** The URL v names, if it is one. */
function urlOrUndefined(v: string): URL | undefined {
  try {
    return new URL(v);
  } catch {
    return undefined;
  }
}

const isHttp = (url: URL) => ['http:', 'https:'].includes(url.protocol);

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .refine((v) => v === undefined || protocols.includes(urlOrUndefined(v)?.protocol ?? ''), {
      message: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    });

const int = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

/** A quota cost: a non-negative number of tokens, fractions allowed (kept to 6 decimals). */
const cost = (def: number) => z.coerce.number().min(0).max(1_000_000).default(def);

/** A "true"/"false" setting, read as a boolean. */
const flag = (def: 'true' | 'false') =>
  z
    .enum(['true', 'false'])
    .default(def)
    .transform((v) => v === 'true');

const PROXY_KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** What Fastify's trustProxy (proxy-addr) accepts: an address, a CIDR range or a keyword. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_KEYWORDS.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

const envSchema = z.object({
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  /** Where the embedded database (PGlite) keeps its files when DATABASE_URL is unset. */
  DATA_DIR: z.string().min(1).default('./.data'),
  PORT: int(3000, 1, 65535),
  HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * The longest one request may take to arrive, headers and body (Node checks every few
   * seconds): a client trickling its body is cut off then. Default 2 minutes, room for a 16 MB
   * upload at 150 kB/s. Both HTTP servers (API and site).
   */
  HTTP_REQUEST_TIMEOUT_MS: int(120_000, 1_000, 3_600_000),
  /** The longest a request's headers may take to arrive. Default 10 s. */
  HTTP_HEADERS_TIMEOUT_MS: int(10_000, 1_000, 600_000),
  /**
   * On SIGTERM the servers stop accepting and let running requests finish for this long, then
   * close the connections left (so a slow client cannot hold up a deploy). Default 10 s.
   */
  HTTP_SHUTDOWN_TIMEOUT_MS: int(10_000, 0, 600_000),
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
  /**
   * A stale day (late sightings, a correction, a timetable change: src/domain/records/stale-days.ts)
   * is rebuilt and re-exported by the worker once it has had no new mark for this long, so a
   * burst of late lines for a day costs one build (docs/stale-days-and-caching.md).
   */
  STALE_REBUILD_DELAY_MS: int(60_000, 0, 86_400_000),
  /**
   * ... or once it has been stale for this long however often it is marked again, so that a
   * steady trickle of late lines cannot put its rebuild off for ever. Default 10 minutes.
   */
  STALE_REBUILD_MAX_WAIT_MS: int(600_000, 0, 86_400_000),
  /** How long a worker waits for running jobs on SIGTERM before it exits anyway. */
  SHUTDOWN_TIMEOUT_MS: int(30_000, 0),
  JOB_ATTEMPTS: int(5, 1, 100),
  JOB_BACKOFF_MS: int(5_000, 0),
  /** Sightings needed for a record's confirmed bit. */
  CONFIRM_MIN_SUPPORT: int(2, 1, 1000),
  /**
   * Days of daily records a train's reference models are drawn from, ending with the day the
   * nightly flow just built (the refresh is the flow's last step).
   */
  REFERENCE_MODEL_WINDOW_DAYS: int(14, 1, 366),
  /** Reference models with a smaller weighted share are dropped. */
  REFERENCE_MODEL_MIN_SHARE: z.coerce.number().min(0).max(1).default(0.3),
  PG_POOL_MAX: int(10, 1, 200),

  // Circulation inference (src/domain/circulation). Defaults are the live service's (compatibility.md).
  /** Service days of records an inference run reads, ending with the day that just ended. */
  CIRCULATION_WINDOW_DAYS: int(14, 1, 366),
  /** A link is kept when both its weights (forward and backward) reach this share. */
  CIRCULATION_THRESHOLD: z.coerce.number().gt(0).max(1).default(0.8),
  /** Service days a link must have been seen on to be kept. */
  CIRCULATION_MIN_SUPPORT: int(3, 1, 366),
  /** Cron pattern (Asia/Shanghai) of the daily inference run. */
  CIRCULATION_CRON: z.string().min(1).default('0 2 * * *'),

  // Read API v2 (src/http/api). Defaults are the live service's (compatibility.md).
  /** Page size of /records/daily when `limit` is absent. */
  RECORDS_DAILY_DEFAULT_LIMIT: int(20, 1, 10_000),
  /** Largest page of /records/daily; larger `limit` values are cut to it, not refused. */
  RECORDS_DAILY_MAX_LIMIT: int(200, 1, 10_000),
  /** Page size of /records/changes when `limit` is absent, and its largest. */
  RECORD_CHANGES_DEFAULT_LIMIT: int(500, 1, 100_000),
  RECORD_CHANGES_MAX_LIMIT: int(5_000, 1, 100_000),
  /** Days the change feed keeps a change; an older cursor is 410 cursor_expired. */
  RECORD_CHANGES_RETENTION_DAYS: int(30, 1, 3_650),
  /** Page size of the train and EMU histories and the station timetable when `limit` is absent. */
  PAGE_DEFAULT_LIMIT: int(20, 1, 10_000),
  /** Largest page of those operations; larger `limit` values are cut to it, not refused. */
  PAGE_MAX_LIMIT: int(200, 1, 10_000),
  /**
   * Proxies whose X-Forwarded-For is believed, comma-separated: addresses, CIDR ranges, or the
   * names loopback, linklocal, uniquelocal. Empty (the default): the socket address is the caller.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    )
    .refine((list) => list.every(isProxyAddress), {
      message:
        'expected comma-separated IP addresses, CIDR ranges, loopback, linklocal or uniquelocal',
    }),

  // The web app's pages (src/http/web): a limit per address of its own, apart from the API's
  // quota (whose anonymous 25 tokens would stop a person after a few pages). A person reading
  // and clicking stays far below it; a scraper walking every train does not.
  /** Pages one address (IPv6: its /64) may ask for at once before it waits. */
  WEB_PAGE_BURST: int(120, 1),
  /** Pages added back to that allowance each minute. */
  WEB_PAGES_PER_MINUTE: int(60, 1),

  // Quota: one token bucket per caller (src/http/quota).
  QUOTA_ANONYMOUS_CAPACITY: int(25, 1),
  QUOTA_USER_CAPACITY: int(1000, 1),
  /** Tokens added every QUOTA_REFILL_INTERVAL_SECONDS; 0 turns refill off. */
  QUOTA_REFILL_AMOUNT: int(5, 0),
  QUOTA_REFILL_INTERVAL_SECONDS: int(300, 1),
  /** Cost of one /records/daily request before its records are counted. */
  QUOTA_COST_RECORDS_DAILY: cost(0),
  /** Cost of each record /records/daily returns; a request's total is rounded up. */
  QUOTA_COST_RECORDS_DAILY_PER_RECORD: cost(0.05),
  /** Cost of one /records/changes request before its changes are counted. */
  QUOTA_COST_RECORD_CHANGES: cost(1),
  /** Cost of each change /records/changes returns; a request's total is rounded up. */
  QUOTA_COST_RECORD_CHANGES_PER_RECORD: cost(0.01),
  QUOTA_COST_EXPORT_INDEX: cost(2),
  QUOTA_COST_EXPORT_DAY: cost(50),
  QUOTA_COST_ALLOCATION: cost(1),
  QUOTA_COST_TIMETABLE_CURRENT: cost(1),
  /** Cost of one timetable history request before its coverage records are counted. */
  QUOTA_COST_TIMETABLE_HISTORY: cost(1),
  QUOTA_COST_TIMETABLE_HISTORY_PER_RECORD: cost(0.05),
  /** Cost of each record (train at the station) the station timetable returns; rounded up. */
  QUOTA_COST_STATION_TIMETABLE_PER_RECORD: cost(0.05),
  QUOTA_COST_TRAIN_HISTORY_PER_RECORD: cost(0.05),
  QUOTA_COST_EMU_HISTORY_PER_RECORD: cost(0.05),
  /** GetTrainCirculationImage: a picture drawn before (cached), drawn now, or failing to draw. */
  QUOTA_COST_CIRCULATION_IMAGE_CACHED: cost(2),
  QUOTA_COST_CIRCULATION_IMAGE_RENDERED: cost(20),
  QUOTA_COST_CIRCULATION_IMAGE_FAILED: cost(2),
  /** GetTrainPrediction (not in the live service). */
  QUOTA_COST_PREDICTION: cost(1),
  /**
   * The least any /api/v2 request costs, failed or not (400, 401, 403, 404 and 429 included;
   * 5xx and the free account operations excepted). 0 = failures cost nothing (the seed's
   * behaviour).
   */
  QUOTA_MIN_COST: int(1, 0, 1_000),
  /**
   * A cost above the caller's whole bucket (or its key's daily limit): `refuse` = 403
   * cost_exceeds_quota_limit; `whole_bucket` = charged as the whole bucket (429 until it is full).
   */
  QUOTA_OVER_CAPACITY: z.enum(['refuse', 'whole_bucket']).default('refuse'),
  /** Prefix of the quota buckets' Redis keys; tests give each run its own. */
  QUOTA_KEY_PREFIX: z.string().min(1).default('emutrack:quota:'),
  /** A quota command Redis has not answered in this time counts as Redis being down. */
  QUOTA_REDIS_TIMEOUT_MS: int(1_000, 10, 60_000),

  // Accounts, keys and sign-in (src/domain/accounts, src/http/api, src/http/account).
  /** scrypt cost of password hashes (a power of two); r and p below. Raising it applies to new hashes. */
  PASSWORD_SCRYPT_N: int(16_384, 1024, 1_048_576).refine((n) => (n & (n - 1)) === 0, {
    message: 'must be a power of two',
  }),
  PASSWORD_SCRYPT_R: int(8, 1, 64),
  PASSWORD_SCRYPT_P: int(1, 1, 16),
  /** Tokens per Shanghai service day a new API key or web session may spend. */
  API_KEY_DAILY_TOKEN_LIMIT: int(10_000, 0, 2_147_483_647),
  /** Lifetime of a new API key when none is asked for, and of a web session. */
  API_KEY_DEFAULT_LIFETIME_DAYS: int(30, 1, 1826),
  /** Longest lifetime of an API key (5 years). */
  API_KEY_MAX_LIFETIME_DAYS: int(1826, 1, 1826),
  /**
   * Sign-in attempts per account and client address before backoff starts (ten times as many
   * per address across accounts); see docs/security-limits.md.
   */
  SIGN_IN_MAX_FAILURES: int(10, 1, 1000),
  /** The longest wait between sign-in attempts once backing off (1 s doubling up to this). */
  SIGN_IN_WINDOW_SECONDS: int(900, 1, 86_400),
  /**
   * How long the API reuses a credential check (ms). A revocation or a ban made anywhere is seen
   * within this time; keep it under 1,000.
   */
  CREDENTIAL_CACHE_MS: int(500, 0, 1_000),
  /** Cost of GetAuthMe (the session check). */
  QUOTA_COST_AUTH_ME: cost(1),
  /** Cost of Search (the lookup box). */
  QUOTA_COST_SEARCH: cost(1),
  /** How often (ms) search asks whether timetables or the EMU register changed; 0 = every search. */
  SEARCH_CHECK_EVERY_MS: int(1_000, 0, 60_000),

  // OAuth 2.0 authorization server (src/domain/oauth, src/http/oauth).
  /**
   * The API's external base URL: the OAuth issuer (the id_token's `iss`, discovery's `issuer`)
   * and the base of the endpoints discovery lists. No query or fragment; a trailing / is dropped.
   */
  PUBLIC_URL: z
    .string()
    .trim()
    .default('http://localhost:3000')
    .refine(
      (v) => {
        const url = urlOrUndefined(v);
        return url !== undefined && isHttp(url) && !url.search && !url.hash;
      },
      { message: 'must be an http(s) URL without query or fragment' },
    ),
  /**
   * Secret (32+ characters) the id_token signing keys are encrypted with in the database.
   * Unset = one is generated once into DATA_DIR/oauth-key-secret (development).
   */
  OAUTH_KEY_SECRET: z
    .string()
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .refine((v) => v === undefined || v.length >= 32, { message: 'must be 32 characters or more' }),
  /** Authorization requests (GET and POST /oauth/authorize) one address may make per minute. */
  OAUTH_AUTHORIZE_RATE_PER_MINUTE: int(60, 1),
  /** Token requests (POST /oauth/token) one address may make per minute. */
  OAUTH_TOKEN_RATE_PER_MINUTE: int(30, 1),
  /** How often the API deletes expired authorization codes and consents, in seconds; 0 = never. */
  OAUTH_CLEANUP_INTERVAL_SECONDS: int(3_600, 0),

  // Documentation site: the WordPress-compatible content API and pages (src/http/site, src/domain/content).
  /** Port of `npm run site` (it binds HOST). */
  SITE_PORT: int(3001, 1, 65535),
  /** The site's public address (links, REST root); unset = http://localhost:SITE_PORT. */
  SITE_URL: optionalUrl(['http:', 'https:']),
  /** The site's title (index `name`, page titles). */
  SITE_NAME: z.string().min(1).default('emutrack 文档'),
  /** The site's tagline (index `description`). */
  SITE_DESCRIPTION: z.string().default('emutrack：动车组交路与车次数据的文档'),
  /** Write emutrack's own documentation as the site's contents on first start ("true"/"false"). */
  SITE_SEED_DOCS: flag('true'),

  // Operations: metrics, database timeouts, stalled-job recovery (src/http/ops/metrics, src/http/ops, src/worker).
  /** Bearer token GET /metrics requires; unset = /metrics is off (404). */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** A Postgres connection not made (or a pooled one not free) within this is `unavailable`. */
  PG_CONNECT_TIMEOUT_MS: int(3_000, 100, 60_000),
  /**
   * BullMQ job lock: a running job renews it every half of this; a killed worker's job is taken
   * over once it lapses. Recovery after a crash takes at most lock + stalled interval.
   */
  JOB_LOCK_MS: int(10_000, 1_000),
  /** How often workers look for jobs whose lock has lapsed (stalled), in ms. */
  JOB_STALLED_INTERVAL_MS: int(5_000, 500),

  // Change feed and webhooks (src/domain/records/record-changes.ts, src/domain/webhooks, src/worker/webhook-*).
  /**
   * Allow webhook endpoints on the loopback, over http ("true"/"false", default false): for
   * development and tests. Private and other non-public addresses are refused regardless.
   */
  WEBHOOK_ALLOW_LOOPBACK: flag('false'),
  /** One delivery attempt, connection to end of answer (ms). */
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
  /**
   * Attempts per delivery, the first included; retries wait JOB_BACKOFF_MS, then twice as long
   * each time (15 attempts from 5 s span about a day).
   */
  WEBHOOK_MAX_ATTEMPTS: int(15, 1, 50),
  /** An endpoint whose every delivery has failed for this long is disabled (ms; a day). */
  WEBHOOK_DISABLE_AFTER_MS: int(86_400_000, 0),
  /** Webhook endpoints one user may have (their OAuth apps' included); one more is refused. */
  WEBHOOK_MAX_ENDPOINTS_PER_USER: int(10, 1, 1_000),
  /**
   * Deliveries of one event to one user's endpoints at most (and never two to one URL): what
   * endpoints made before a lower WEBHOOK_MAX_ENDPOINTS_PER_USER can still multiply an event into.
   */
  WEBHOOK_MAX_DELIVERIES_PER_EVENT: int(10, 1, 1_000),
  /** Cost of each webhook operation (register, list, deliveries, rotate, delete). */
  QUOTA_COST_WEBHOOKS: cost(1),
  /** How long a rotated-out secret keeps signing beside the new one (s; a day). */
  WEBHOOK_SECRET_OVERLAP_SECONDS: int(86_400, 0, 30 * 86_400),
  /**
   * How often the dispatcher looks for new changes and exports (ms). A notice from Postgres wakes
   * it sooner; this is what correctness rests on when a notice is missed.
   */
  WEBHOOK_POLL_MS: int(1_000, 10, 600_000),

  // Alerts (src/domain/alerts, src/worker/alert-dispatcher.ts): e-mail, Web Push, webhooks.
  /**
   * Where alert e-mails go out: smtp://user:pass@host:587 or smtps://... (nodemailer's URL).
   * Unset = no e-mail channel: e-mail subscriptions are refused (503) and none is sent.
   */
  SMTP_URL: optionalUrl(['smtp:', 'smtps:']),
  /** The From of alert e-mails; also the VAPID contact (mailto:) push services may write to. */
  ALERT_MAIL_FROM: z.string().trim().email().default('alerts@emutrack.invalid'),
  /** Alert subscriptions one user may have (dropped ones not counted); one more is refused. */
  ALERT_MAX_SUBSCRIPTIONS_PER_USER: int(50, 1, 1_000),
  /** Attempts per alert (the first included), JOB_BACKOFF_MS doubling between them. */
  ALERT_MAX_ATTEMPTS: int(10, 1, 50),
  /** How often the alert dispatcher reads the feed and sends what is due (ms). */
  ALERT_POLL_MS: int(1_000, 10, 600_000),
  /** The hour (0-23, Shanghai time) a digest subscription's day of alerts goes out as one mail. */
  ALERT_DIGEST_HOUR: int(20, 0, 23),
  /** Cost of each subscriptions operation (list, subscribe, delete, VAPID key). */
  QUOTA_COST_SUBSCRIPTIONS: cost(1),

  // Documentation site: media, templates and oEmbed (src/domain/media, src/domain/templates, src/domain/oembed).
  /** Directory of uploaded files (served at /wp-content/uploads/); unset = DATA_DIR/uploads. */
  MEDIA_UPLOADS_DIR: z.string().min(1).optional(),
  /** Largest upload in bytes (32 MiB); larger ones are refused with 413 while streaming. */
  MEDIA_MAX_UPLOAD_BYTES: int(32 * 1024 * 1024, 1),
  /** Images with more pixels (width x height, read from the header) are refused before decoding. */
  MEDIA_MAX_IMAGE_PIXELS: int(100_000_000, 1),
  /** WordPress's big-image threshold: larger originals get a "-scaled" copy within it; 0 = off. */
  MEDIA_BIG_IMAGE_THRESHOLD: int(2560, 0, 65_535),
  /** Quality of the JPEG and WebP sizes and edits (WordPress's default is 82). */
  MEDIA_IMAGE_QUALITY: int(82, 1, 100),
  /**
   * The oEmbed proxy's allow-list: entries separated by ";" or newlines, each
   * "<URL pattern> <provider endpoint>" (pattern: * matches any characters). Empty = no provider.
   */
  OEMBED_PROVIDERS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const entries: { pattern: string; endpoint: string }[] = [];
      for (const raw of v.split(/[;\n]/)) {
        const entry = raw.trim();
        if (entry === '') continue;
        const [pattern, endpoint, ...rest] = entry.split(/\s+/);
        const valid = (u: string | undefined) => {
          const url = u === undefined ? undefined : urlOrUndefined(u);
          return url !== undefined && isHttp(url);
        };
        if (rest.length > 0 || !valid(pattern?.replace(/\*/g, 'x')) || !valid(endpoint)) {
          ctx.addIssue({
            code: 'custom',
            message: `entry "${entry}": expected "<http(s) URL pattern> <http(s) endpoint URL>"`,
          });
          return z.NEVER;
        }
        entries.push({ pattern: pattern!, endpoint: endpoint! });
      }
      return entries;
    }),
  /** A provider answering later than this is given up (504). */
  OEMBED_PROXY_TIMEOUT_MS: int(5_000, 100, 60_000),
  /** Largest provider answer read, in bytes; longer ones are cut off and refused. */
  OEMBED_PROXY_MAX_BYTES: int(256 * 1024, 1024, 16 * 1024 * 1024),
  /** How long a provider's answer is kept (WordPress keeps embeds a day). */
  OEMBED_PROXY_CACHE_SECONDS: int(86_400, 0),

  // Input rules (src/domain/emus/emu-forms.ts).
  /**
   * Accept sightings whose EMU code is of no known model form and not in the fleet, registering
   * a unit for it ("true"/"false"; default false: such lines are rejected, naming the field).
   */
  ALLOW_UNKNOWN_EMU_FORMS: flag('false'),
});

export type Config = z.infer<typeof envSchema> & {
  /**
   * Whether PUBLIC_URL was set (not its default): when it was not, the documentation site links
   * the API at the address its own request came to, on PORT (src/http/peer-url.ts).
   */
  readonly publicUrlGiven: boolean;
};

/** Reads and validates the environment once; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    // Secrets are never repeated in an error message (it may end up in a log).
    const value = /SECRET|TOKEN|PASSWORD/.test(variable) ? undefined : env[variable];
    throw new ConfigError(
      variable,
      `${issue.message}${value === undefined ? '' : ` (got ${JSON.stringify(value)})`}`,
    );
  }
  return { ...result.data, publicUrlGiven: (env.PUBLIC_URL ?? '').trim() !== '' };
}
