import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { MediaError } from './media-error.js';
import { ALLOWED_MEDIA_KINDS, TEXT_KIND, type MediaKind } from './media-types.js';

const TEXT_PROBE_BYTES = 64 * 1024;

/** Whether the first bytes are UTF-8 text without NULs (what a .txt or .csv upload must be). */
async function looksLikeText(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(TEXT_PROBE_BYTES);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead);
    if (head.includes(0)) return false;
    // A multi-byte character may be cut at the probe's end: drop up to 3 trailing bytes.
    for (let cut = 0; cut <= 3 && cut < head.length; cut++) {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, head.length - cut));
        return true;
      } catch {
        if (bytesRead < TEXT_PROBE_BYTES) return false;
      }
    }
    return false;
  } finally {
    await handle.close();
  }
}

/**
 * The kind of an uploaded file, decided by its bytes (file-type's signatures; UTF-8 text for the
 * text extensions), never by its name or Content-Type. A type off the allow-list, or bytes of
 * one type under another type's extension (a PNG named .jpg), is 400 `rest_upload_invalid_type`.
 * Returns the kind and the extension the stored name gets.
 */
export async function sniffMediaKind(
  file: string,
  nameExtension: string,
): Promise<{ kind: MediaKind; extension: string }> {
  const detected = await fileTypeFromFile(file);
  let kind: MediaKind | undefined;
  if (detected) kind = ALLOWED_MEDIA_KINDS.get(detected.mime);
  else if (TEXT_KIND.extensions.includes(nameExtension) && (await looksLikeText(file)))
    kind = TEXT_KIND;
  if (!kind) {
    const what = detected ? `${detected.mime} files` : 'this file type';
    throw new MediaError(
      'rest_upload_invalid_type',
      400,
      `Sorry, you are not allowed to upload ${what}.`,
    );
  }
  if (nameExtension === '') return { kind, extension: kind.extensions[0]! };
  if (!kind.extensions.includes(nameExtension)) {
    throw new MediaError(
      'rest_upload_invalid_type',
      400,
      `The file's contents are ${kind.mime} but its name ends in .${nameExtension}; expected .${kind.extensions.join(', .')}.`,
    );
  }
  return { kind, extension: nameExtension };
}
