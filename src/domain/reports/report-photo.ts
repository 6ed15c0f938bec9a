import * as jsqr from 'jsqr';
import sharp, { type OutputInfo } from 'sharp';
import type { Db } from '../../shared/db/db.js';
import { ReportError } from './report-error.js';

// jsqr is CommonJS whose types declare only a default export; its named export is the function.
type DecodeQr = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsqrExports = jsqr as unknown as {
  jsQR?: DecodeQr;
  default?: DecodeQr | { default?: DecodeQr };
};
const jsQR: DecodeQr =
  jsqrExports.jsQR ??
  (typeof jsqrExports.default === 'function' ? jsqrExports.default : jsqrExports.default!.default!);

/** The largest photo accepted, in bytes (a phone photo is 2-4 MB). */
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;
/** The most pixels decoded: a "photo bomb" (a tiny file of a huge image) is refused before it is. */
export const MAX_PHOTO_PIXELS = 40_000_000;
/** The longest side kept, and the side the QR code is looked for at. */
const KEPT_SIDE = 2048;
const QR_SIDE = 1024;

export interface CheckedPhoto {
  /** The re-encoded JPEG: no EXIF, no location, no other metadata. */
  jpeg: Buffer;
  width: number;
  height: number;
  /** The text of a QR code in the picture (the seat's travel code), if one was read. */
  qrText: string | null;
}

/** JPEG, PNG or WebP by their first bytes: what the file says it is counts for nothing. */
function sniff(bytes: Buffer): 'jpeg' | 'png' | 'webp' | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return 'jpeg';
  if (
    bytes.length >= 8 &&
    bytes.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]))
  )
    return 'png';
  if (
    bytes.length >= 12 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WEBP'
  )
    return 'webp';
  return undefined;
}

/**
 * Checks a report's photo and makes the copy that is kept: a real JPEG, PNG or WebP by its
 * content (an HTML page named .png is refused), within the size and pixel limits (decoded with
 * sharp's own pixel limit, so a photo bomb is refused from its header), re-encoded so that its
 * EXIF (and so the reporter's location) is gone; and the QR code in it, read from the RGBA
 * pixels with jsQR.
 */
export async function checkReportPhoto(bytes: Buffer): Promise<CheckedPhoto> {
  if (bytes.length > MAX_PHOTO_BYTES)
    throw new ReportError('invalid', 'photo', `larger than ${MAX_PHOTO_BYTES} bytes`);
  const kind = sniff(bytes);
  if (kind === undefined)
    throw new ReportError('invalid', 'photo', 'not a JPEG, PNG or WebP image');
  let meta;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_PHOTO_PIXELS }).metadata();
  } catch {
    throw new ReportError('invalid', 'photo', 'not a readable image');
  }
  if (meta.format !== kind && !(kind === 'jpeg' && meta.format === 'jpeg'))
    throw new ReportError('invalid', 'photo', 'its content is not the image it claims to be');
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  if (w < 1 || h < 1 || w * h > MAX_PHOTO_PIXELS)
    throw new ReportError('invalid', 'photo', `more than ${MAX_PHOTO_PIXELS} pixels`);
  let out: { data: Buffer; info: OutputInfo };
  let raw: { data: Buffer; info: OutputInfo };
  try {
    const base = () => sharp(bytes, { limitInputPixels: MAX_PHOTO_PIXELS }).rotate();
    // sharp keeps no metadata unless asked (withMetadata): the output has no EXIF.
    out = await base()
      .resize({ width: KEPT_SIDE, height: KEPT_SIDE, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 82 })
      .toBuffer({ resolveWithObject: true });
    const decoded = await base()
      .resize({ width: QR_SIDE, height: QR_SIDE, fit: 'inside', withoutEnlargement: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    raw = decoded;
  } catch {
    throw new ReportError('invalid', 'photo', 'not a readable image');
  }
  const qr = jsQR(
    new Uint8ClampedArray(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength),
    raw.info.width,
    raw.info.height,
  );
  return {
    jpeg: out.data,
    width: out.info.width,
    height: out.info.height,
    qrText: qr ? qr.data.slice(0, 500) : null,
  };
}

/**
 * Keeps a checked photo as the evidence of the reporter's own report (one photo a report), and
 * the QR text read from it. Another account's report is not found.
 */
export async function attachReportPhoto(
  db: Db,
  reportId: number,
  userId: string,
  photo: CheckedPhoto,
): Promise<void> {
  await db.transaction(async (tx) => {
    const r = await tx.query(
      `UPDATE sighting_reports SET photo_ref = 'report_photos', qr_text = coalesce($3, qr_text)
        WHERE id = $1 AND user_id = $2 AND photo_ref IS NULL RETURNING id`,
      [reportId, userId, photo.qrText],
    );
    if (r.rowCount === 0)
      throw new ReportError('not_found', 'id', `no report ${reportId} of yours without a photo`);
    await tx.query(
      'INSERT INTO report_photos (report_id, jpeg, width, height) VALUES ($1, $2, $3, $4)',
      [reportId, photo.jpeg, photo.width, photo.height],
    );
  });
}

/** The kept copy of a report's photo (the re-encoded JPEG), if it has one. */
export async function readReportPhoto(db: Db, reportId: number): Promise<Buffer | undefined> {
  const r = await db.query<{ jpeg: Buffer }>(
    'SELECT jpeg FROM report_photos WHERE report_id = $1',
    [reportId],
  );
  return r.rows[0]?.jpeg;
}

/** Whether a report has its photo already. */
export async function hasReportPhoto(db: Db, reportId: number): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM report_photos WHERE report_id = $1', [reportId]);
  return r.rowCount !== 0;
}
