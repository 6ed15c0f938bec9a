/** What an uploaded file is, decided from its bytes. */
export interface MediaKind {
  mime: string;
  /** Extension written when the name has none that fits; the first of `extensions`. */
  extensions: readonly string[];
  /** Images sharp can decode, resize and edit (sizes are made for these). */
  resizable: boolean;
}

const kind = (mime: string, extensions: string[], resizable = false): MediaKind => ({
  mime,
  extensions,
  resizable,
});

/**
 * The types an upload may have (a subset of WordPress's default allow-list: no executable
 * content such as SVG or HTML). Keyed by the mime type file-type reports.
 */
export const ALLOWED_MEDIA_KINDS: ReadonlyMap<string, MediaKind> = new Map(
  [
    kind('image/jpeg', ['jpg', 'jpeg', 'jpe'], true),
    kind('image/png', ['png'], true),
    kind('image/gif', ['gif'], true),
    kind('image/webp', ['webp'], true),
    kind('image/avif', ['avif'], true),
    kind('application/pdf', ['pdf']),
    kind('audio/mpeg', ['mp3', 'm4a']),
    kind('audio/ogg', ['ogg', 'oga']),
    kind('audio/wav', ['wav']),
    kind('audio/x-wav', ['wav']),
    kind('video/mp4', ['mp4', 'm4v']),
    kind('video/webm', ['webm']),
    kind('video/ogg', ['ogv']),
    kind('video/quicktime', ['mov']),
    kind('application/zip', ['zip']),
    kind('text/plain', ['txt', 'csv', 'md', 'vtt']),
  ].map((k) => [k.mime, k]),
);

export const TEXT_KIND = ALLOWED_MEDIA_KINDS.get('text/plain')!;

/** The extension (lower case, no dot) of a file name, or '' when it has none. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** A file name without the extension extensionOf finds. */
export function stripExtension(name: string): string {
  const ext = extensionOf(name);
  return ext === '' ? name : name.slice(0, -ext.length - 1);
}
