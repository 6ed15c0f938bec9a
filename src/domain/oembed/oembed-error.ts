import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** A refused oEmbed request; `status` is the HTTP status the site answers with. */
export class OembedError extends EmutrackError {
  constructor(
    code: string,
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
