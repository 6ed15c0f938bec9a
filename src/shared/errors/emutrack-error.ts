/**
 * The one base class of the product's own errors (after undici's): every error emutrack throws
 * on purpose carries a stable, documented `code` that callers branch on instead of `instanceof`
 * lists or message text. The message is for people; the code is for programs.
 */
export class EmutrackError extends Error {
  constructor(
    /** Stable machine-readable code, e.g. `ingest_unreadable_file`; never changes once shipped. */
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** True for an EmutrackError (optionally with one of the given codes). */
export function isEmutrackError(error: unknown, ...codes: string[]): error is EmutrackError {
  return error instanceof EmutrackError && (codes.length === 0 || codes.includes(error.code));
}
