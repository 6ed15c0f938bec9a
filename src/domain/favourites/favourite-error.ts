import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * A favourite that cannot be added: its code names nothing of its kind, or the user has as many
 * favourites as there may be. `field` is the request's field the refusal is about.
 */
export class FavouriteError extends EmutrackError {
  constructor(
    readonly field: string,
    /** Why, without the field's name. */
    readonly why: string,
  ) {
    super('favourite_refused', `${field}: ${why}`);
  }
}
