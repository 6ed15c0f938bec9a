import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * A refusal of the accounts domain. Codes (stable): `invalid_param` (a bad field; `field` names
 * it), `username_taken`, `email_taken`, `user_not_found`, `credential_not_found`, `insufficient_scope` (a key
 * asked for a scope its user lacks; `field` is `scopes`, `scope` names it).
 */
export class AccountError extends EmutrackError {
  constructor(
    code:
      | 'invalid_param'
      | 'username_taken'
      | 'email_taken'
      | 'user_not_found'
      | 'credential_not_found'
      | 'insufficient_scope',
    message: string,
    /** The input field at fault, when one is. */
    readonly field?: string,
  ) {
    super(code, message);
  }
}
