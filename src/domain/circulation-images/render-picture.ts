import { renderAsync } from '@resvg/resvg-js';
import PDFDocument from 'pdfkit';
import { CJK_FONT_FAMILY, cjkFontFiles, type CjkFontFiles } from './cjk-font.js';
import type { PictureLayout } from './picture-layout.js';
import { pictureSvg } from './render-svg.js';

export type PictureFormat = 'png' | 'pdf';

export const PICTURE_CONTENT_TYPES: Record<PictureFormat, string> = {
  png: 'image/png',
  pdf: 'application/pdf',
};

/**
 * Draws a layout as a document. The default draws PNG through SVG and resvg (on libuv's thread
 * pool, off the event loop) and PDF with pdfkit; tests substitute one that fails.
 */
export type PictureRenderer = (layout: PictureLayout, format: PictureFormat) => Promise<Buffer>;

/** PNG pixels per layout unit: twice the layout, so that small Chinese text stays crisp. */
const PNG_ZOOM = 2;

export async function renderPng(
  layout: PictureLayout,
  fonts: CjkFontFiles = cjkFontFiles(),
): Promise<Buffer> {
  const image = await renderAsync(pictureSvg(layout), {
    font: {
      fontFiles: [fonts.regular, fonts.bold],
      loadSystemFonts: false,
      defaultFontFamily: CJK_FONT_FAMILY,
      sansSerifFamily: CJK_FONT_FAMILY,
    },
    fitTo: { mode: 'zoom', value: PNG_ZOOM },
    background: '#ffffff',
    logLevel: 'off',
  });
  return image.asPng();
}

/**
 * The same layout as a one-page PDF, in points, with the font embedded as a subset (only the
 * glyphs drawn). pdfkit is used because it is maintained (pdf-lib has not had a release since
 * 2021), embeds and subsets TrueType fonts through fontkit by itself, and draws the few shapes
 * the layout needs directly, so the PDF keeps real, searchable text. A fixed creation date keeps
 * the bytes of one layout the same from render to render.
 */
export async function renderPdf(
  layout: PictureLayout,
  fonts: CjkFontFiles = cjkFontFiles(),
): Promise<Buffer> {
  const doc = new PDFDocument({
    size: [layout.width, layout.height],
    margin: 0,
    compress: true,
    info: {
      Title: layout.title,
      Creator: 'emutrack',
      Producer: 'emutrack (pdfkit)',
      CreationDate: new Date(0),
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('regular', fonts.regular);
  doc.registerFont('bold', fonts.bold);
  doc.rect(0, 0, layout.width, layout.height).fill('#ffffff');
  for (const r of layout.rects) {
    doc.save();
    if (r.dashed) doc.dash(6, { space: 4 });
    doc
      .roundedRect(r.x, r.y, r.width, r.height, r.radius)
      .lineWidth(r.strokeWidth)
      .fillAndStroke(r.fill, r.stroke);
    doc.restore();
  }
  for (const a of layout.arrows) {
    doc
      .moveTo(a.x1, a.y)
      .lineTo(a.x2 - 6, a.y)
      .lineWidth(2)
      .stroke(a.stroke);
    doc.polygon([a.x2, a.y], [a.x2 - 7, a.y - 4.5], [a.x2 - 7, a.y + 4.5]).fill(a.stroke);
  }
  for (const t of layout.texts) {
    doc.font(t.weight).fontSize(t.size).fillColor(t.fill);
    const x = t.anchor === 'middle' ? t.x - doc.widthOfString(t.text) / 2 : t.x;
    doc.text(t.text, x, t.y, { baseline: 'alphabetic', lineBreak: false });
  }
  doc.end();
  return done;
}

export const defaultPictureRenderer: PictureRenderer = (layout, format) =>
  format === 'png' ? renderPng(layout) : renderPdf(layout);
