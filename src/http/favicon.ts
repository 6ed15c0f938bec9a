import type { FastifyInstance } from 'fastify';

/**
 * `/favicon.ico` of the API and of the documentation site: browsers ask for it on every page
 * they open, and a 404 there is a console error on each. A train's front in emutrack's blue,
 * drawn once (32 px PNG) and wrapped as an ICO (one PNG image: read by every browser since
 * Windows Vista's format revision), cached for a day.
 */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="6" fill="#2271b1"/>' +
  '<path d="M9 6h14a3 3 0 0 1 3 3v12a3 3 0 0 1-3 3H9a3 3 0 0 1-3-3V9a3 3 0 0 1 3-3z" fill="#fff"/>' +
  '<rect x="9" y="9" width="14" height="6" rx="1" fill="#2271b1"/>' +
  '<circle cx="11" cy="19.5" r="1.6" fill="#2271b1"/><circle cx="21" cy="19.5" r="1.6" fill="#2271b1"/>' +
  '<path d="M10 24l-3 4h3l2-4zm12 0l3 4h-3l-2-4z" fill="#fff"/></svg>';

/** An ICO file holding one PNG image of `size` px. */
export function icoOfPng(png: Buffer, size: number): Buffer {
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size >= 256 ? 0 : size, 6); // width (0 = 256)
  header.writeUInt8(size >= 256 ? 0 : size, 7); // height
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9); // reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14); // image bytes
  header.writeUInt32LE(header.length, 18); // image offset
  return Buffer.concat([header, png]);
}

let icon: Promise<Buffer> | undefined;

/** The icon's bytes, drawn on first use (resvg is loaded then, not at start-up). */
export function faviconIco(): Promise<Buffer> {
  icon ??= import('@resvg/resvg-js').then(({ Resvg }) =>
    icoOfPng(new Resvg(ICON_SVG, { fitTo: { mode: 'width', value: 32 } }).render().asPng(), 32),
  );
  return icon;
}

export function registerFavicon(app: FastifyInstance): void {
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-type', 'image/x-icon')
      .header('cache-control', 'public, max-age=86400')
      .send(await faviconIco()),
  );
}
