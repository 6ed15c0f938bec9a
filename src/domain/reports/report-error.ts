import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * A sighting report refused: malformed or against the rules (`invalid`, naming the field and
 * why), over a daily limit (`limit`), or naming nothing (`not_found`).
 */
export class ReportError extends EmutrackError {
  constructor(
    readonly kind: 'invalid' | 'limit' | 'not_found',
    readonly field: string | null,
    message: string,
  ) {
    super('report_refused', field ? `${field}: ${message}` : message);
  }
}
