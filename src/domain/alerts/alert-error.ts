import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * An alert subscription refused, or one not found. Codes:
 * - `alert_invalid_input`: a field that is malformed or names nothing known (`field` says which);
 * - `alert_address_refused`: a push endpoint that is not https or is a non-public address;
 * - `alert_not_found`: no subscription of that id belongs to the caller (or the token is unknown);
 * - `alert_limit_reached`: the user has as many subscriptions as one user may.
 */
export class AlertError extends EmutrackError {
  constructor(
    code:
      'alert_invalid_input' | 'alert_address_refused' | 'alert_not_found' | 'alert_limit_reached',
    message: string,
    /** The request field the error is about. */
    readonly field?: string,
  ) {
    super(code, message);
  }
}
