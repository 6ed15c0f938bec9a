import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** A refused template request; `status` is the HTTP status the site answers with. */
export class TemplateError extends EmutrackError {
  constructor(
    code: string,
    readonly status: number,
    message: string,
  ) {
    super(code, message);
  }
}
