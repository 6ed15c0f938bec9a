import { CJK_FONT_FAMILY } from './cjk-font.js';
import type { PictureLayout } from './picture-layout.js';

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** Numbers as SVG writes them: at most two decimals, no trailing zeros. */
function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

const ARROW_HEAD = 7;

/** The layout as an SVG document (text in the CJK font the renderers load). */
export function pictureSvg(layout: PictureLayout): string {
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family="${CJK_FONT_FAMILY}">`,
    `<title>${escapeXml(layout.title)}</title>`,
    `<rect x="0" y="0" width="${layout.width}" height="${layout.height}" fill="#ffffff"/>`,
  );
  for (const r of layout.rects) {
    out.push(
      `<rect x="${n(r.x)}" y="${n(r.y)}" width="${n(r.width)}" height="${n(r.height)}" rx="${n(r.radius)}" fill="${r.fill}" stroke="${r.stroke}" stroke-width="${n(r.strokeWidth)}"${r.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
  }
  for (const a of layout.arrows) {
    const tip = a.x2;
    out.push(
      `<line x1="${n(a.x1)}" y1="${n(a.y)}" x2="${n(tip - ARROW_HEAD + 1)}" y2="${n(a.y)}" stroke="${a.stroke}" stroke-width="2"/>`,
      `<polygon points="${n(tip)},${n(a.y)} ${n(tip - ARROW_HEAD)},${n(a.y - 4.5)} ${n(tip - ARROW_HEAD)},${n(a.y + 4.5)}" fill="${a.stroke}"/>`,
    );
  }
  for (const t of layout.texts) {
    out.push(
      `<text x="${n(t.x)}" y="${n(t.y)}" font-size="${n(t.size)}" font-weight="${t.weight === 'bold' ? 700 : 400}" fill="${t.fill}"${t.anchor === 'middle' ? ' text-anchor="middle"' : ''}>${escapeXml(t.text)}</text>`,
    );
  }
  out.push('</svg>');
  return out.join('\n');
}
