import PDFDocument from 'pdfkit';
import { cjkFontFiles, type CjkFontFiles } from './cjk-font.js';
import type { FontWeight } from './picture-layout.js';

/**
 * Widths of text in the pictures' font, from the font's own metrics (pdfkit reads them through
 * fontkit, the same font files resvg draws with), so that a layout knows what fits before it is
 * drawn. One measuring document is kept per process; it is never written out.
 */
export class TextMeasure {
  private readonly doc: PDFKit.PDFDocument;
  private readonly cache = new Map<string, number>();

  constructor(fonts: CjkFontFiles = cjkFontFiles()) {
    this.doc = new PDFDocument({ autoFirstPage: false });
    this.doc.registerFont('regular', fonts.regular);
    this.doc.registerFont('bold', fonts.bold);
  }

  /** The advance width of `text` at `size` (layout units: pixels or points alike). */
  width(text: string, size: number, weight: FontWeight): number {
    const key = `${weight}\u0000${text}`;
    let perUnit = this.cache.get(key);
    if (perUnit === undefined) {
      perUnit = this.doc.font(weight).fontSize(1000).widthOfString(text) / 1000;
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(key, perUnit);
    }
    return perUnit * size;
  }

  /** The largest size from `preferred` down to `min` (steps of 0.5) at which `text` fits `maxWidth`. */
  fittedSize(
    text: string,
    maxWidth: number,
    preferred: number,
    min: number,
    weight: FontWeight,
  ): number | undefined {
    for (let size = preferred; size >= min; size -= 0.5)
      if (this.width(text, size, weight) <= maxWidth) return size;
    return undefined;
  }

  /**
   * `text` in lines no wider than `maxWidth` at `size`: broken after the separators it holds
   * (' · ', then spaces), and, for a piece still too wide, between characters.
   */
  wrap(text: string, maxWidth: number, size: number, weight: FontWeight): string[] {
    const pieces = text.split(/(?<= · )|(?<= )/);
    const lines: string[] = [];
    let line = '';
    const push = () => {
      if (line.trim() !== '') lines.push(line.trimEnd());
      line = '';
    };
    for (const piece of pieces) {
      if (this.width(line + piece, size, weight) <= maxWidth) {
        line += piece;
        continue;
      }
      push();
      if (this.width(piece, size, weight) <= maxWidth) {
        line = piece;
        continue;
      }
      for (const ch of piece) {
        if (this.width(line + ch, size, weight) > maxWidth && line !== '') push();
        line += ch;
      }
    }
    push();
    return lines;
  }
}

let shared: TextMeasure | undefined;

/** The process's measure with the bundled font. */
export function defaultTextMeasure(): TextMeasure {
  shared ??= new TextMeasure();
  return shared;
}
