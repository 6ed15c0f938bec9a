import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * A webhook request refused or a delivery that cannot be made. Codes:
 * - `webhook_invalid_url`: not an https URL (or http on loopback where allowed), or credentials
 *   in it, or too long;
 * - `webhook_address_refused`: the host is, or resolves to, a private or loopback address (at
 *   delivery the message says only that the address is not allowed; what the name resolved to
 *   is in `detail`, for the server's log);
 * - `webhook_invalid_event`: an event type that does not exist;
 * - `webhook_invalid_filter`: a train or EMU filter that names nothing known, or filters on an
 *   endpoint that does not ask for records.changed;
 * - `webhook_not_found`: no endpoint of that id belongs to the caller;
 * - `webhook_limit_reached`: the user has as many endpoints as one user may.
 */
export class WebhookError extends EmutrackError {
  constructor(
    code:
      | 'webhook_invalid_url'
      | 'webhook_address_refused'
      | 'webhook_invalid_event'
      | 'webhook_invalid_filter'
      | 'webhook_not_found'
      | 'webhook_limit_reached',
    message: string,
    /** The request field the error is about (url, events, trains, emus). */
    readonly field?: string,
    options?: { cause?: unknown; detail?: string },
  ) {
    super(code, message, options);
    this.detail = options?.detail;
  }

  /** What the server logs and never shows the caller (what an internal name resolved to). */
  readonly detail?: string;
}
