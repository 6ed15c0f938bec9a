import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * A correction refused: what it names does not exist (`not_found`), the request cannot be
 * carried out as asked (`invalid`: no reason, a unit merged into itself), or it clashes with
 * the corrections in force (`conflict`: retracted already, undone already). `field` names the
 * input to blame, when one is.
 */
export class CorrectionError extends EmutrackError {
  constructor(
    readonly kind: 'not_found' | 'invalid' | 'conflict',
    readonly field: string | null,
    message: string,
  ) {
    super('correction_refused', field ? `${field}: ${message}` : message);
  }
}
