import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * A favourite that cannot be added: its code names nothing of its kind, or the user has as many
 * favourites as there may be. `field` is the request's field the refusal is about.
 */
export class FavouriteError extends EmutrackError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('favourite_refused', `${field}: ${message}`);
  }
}
