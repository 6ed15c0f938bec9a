import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** The v2 API's error codes and the HTTP status each is sent with. */
export const API_ERROR_STATUS = {
  invalid_param: 400,
  /** No usable credential: unknown, revoked, expired or not yet active (WWW-Authenticate: Bearer). */
  invalid_api_key: 401,
  /** Sign-in with a wrong username or password (the two are not told apart). */
  invalid_credentials: 401,
  /** The caller's user is banned. */
  account_banned: 403,
  /** The credential lacks the operation's scope (the message names it). */
  insufficient_scope: 403,
  /** A form or cookie-authenticated write without its CSRF token, or an operation not open to this kind of credential. */
  forbidden: 403,
  /** The request costs more than the caller's whole bucket (or its key's daily limit) holds. */
  cost_exceeds_quota_limit: 403,
  not_found: 404,
  /** GetDailyRecordChanges: the cursor is older than the changes kept (resynchronise). */
  cursor_expired: 410,
  username_taken: 409,
  /** A correction that clashes with those in force (retracted already, undone already). */
  correction_conflict: 409,
  payload_too_large: 413,
  /** GetTrainCirculationImage: the train is known but has no circulation to draw. */
  no_circulation: 422,
  rate_limited: 429,
  internal: 500,
  /** GetTrainCirculationImage: drawing the picture failed. */
  render_failed: 502,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/**
 * An error the API reports as `{meta, error: {code, message}}`; the message is shown to clients.
 * Its `code` is the EmutrackError's stable code, sent as is in the envelope.
 */
export class ApiError extends EmutrackError {
  // Narrows the base class's field (declare: no second initialisation of it).
  declare readonly code: ApiErrorCode;
  readonly statusCode: number;

  constructor(
    code: ApiErrorCode,
    message: string,
    /** Seconds to wait, for rate_limited. */
    readonly retryAfter?: number,
  ) {
    super(code, message);
    this.statusCode = API_ERROR_STATUS[code];
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  // Postgres: cannot connect now, admin shutdown, crash shutdown, too many connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused/i;

/** Whether an error from a query means the database cannot be reached (503), not a bug (500). */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (typeof e !== 'object') break;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      // SQLSTATE class 08: connection exception.
      if (CONNECTION_ERROR_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    if (e instanceof AggregateError && e.errors.some(isDatabaseUnavailable)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
