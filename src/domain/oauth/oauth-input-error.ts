import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * Bad input to the client registry or the scope review (code `oauth_invalid_input`); `field`
 * names the field at fault, and the message starts with it.
 */
export class OAuthInputError extends EmutrackError {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super('oauth_invalid_input', `${field}: ${detail}`);
  }
}
