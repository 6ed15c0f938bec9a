import { EmutrackError } from '../../../shared/errors/emutrack-error.js';

/** The `data` of a WordPress REST error: always a status, sometimes the bad params. */
export interface RestErrorData {
  status: number;
  params?: Record<string, string> | string[];
  details?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A WordPress REST error (`WP_Error` on the wire): `{code, message, data: {status, ...}}`. The
 * code is WordPress's own (rest_no_route, rest_invalid_param, ...), so clients branch on it.
 */
export class RestError extends EmutrackError {
  readonly data: RestErrorData;

  constructor(code: string, message: string, data: RestErrorData | number) {
    super(code, message);
    this.data = typeof data === 'number' ? { status: data } : data;
  }

  get status(): number {
    return this.data.status;
  }

  toJSON(): { code: string; message: string; data: RestErrorData } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** 401 for an anonymous caller, 403 for a signed-in one (WordPress's rest_authorization_required_code). */
export function authorizationStatus(signedIn: boolean): number {
  return signedIn ? 403 : 401;
}
