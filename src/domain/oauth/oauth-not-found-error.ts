import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * No such OAuth client (code `oauth_client_not_found`), or not one the caller may see: a user
 * asking for another user's client gets this too, so that client ids cannot be probed.
 */
export class OAuthClientNotFoundError extends EmutrackError {
  constructor(readonly clientId: string) {
    super('oauth_client_not_found', `no OAuth client ${JSON.stringify(clientId.slice(0, 100))}`);
  }
}
