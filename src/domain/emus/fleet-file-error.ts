import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** A fleet file that cannot be read at all (as opposed to a bad row in it). */
export class FleetFileError extends EmutrackError {
  constructor(file: string, reason: string) {
    super('fleet_file_invalid', `${file}: ${reason}`);
  }
}
