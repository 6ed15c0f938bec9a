import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * A refused media request. `code` is WordPress's (rest_upload_no_data, rest_upload_file_too_big,
 * ...) so the site answers what WordPress clients expect; `status` is the HTTP status it maps to.
 */
export class MediaError extends EmutrackError {
  constructor(
    code: string,
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
