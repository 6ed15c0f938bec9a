import sharp from 'sharp';
import { ICON_SVG } from '../../favicon.js';

/** The colour behind the maskable icon's train: the favicon's blue, to the edges. */
const ICON_BLUE = '#2271b1';

/**
 * The maskable icon: the favicon's train on a square of its blue that fills the whole image (a
 * launcher cuts it to its own shape: circle, squircle, rounded square), the train scaled to 75 %
 * about the centre so that all of it lies inside the safe zone, the centred circle of 80 % of
 * the width every mask keeps.
 */
const MASKABLE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  `<rect width="32" height="32" fill="${ICON_BLUE}"/>` +
  '<g transform="translate(16 16) scale(0.75) translate(-16 -17)">' +
  ICON_SVG.replace(/^<svg[^>]*>/, '')
    .replace(/<\/svg>$/, '')
    .replace(/^<rect width="32" height="32" rx="6" fill="#2271b1"\/>/, '') +
  '</g></svg>';

/** One icon of the web app's manifest. */
export interface AppIcon {
  /** The asset's name ('icon-192.png'); its URL is hashed like every asset's. */
  name: string;
  size: number;
  purpose: 'any' | 'maskable';
  png: Buffer;
}

const ICONS: readonly { name: string; size: number; purpose: AppIcon['purpose']; svg: string }[] = [
  { name: 'icon-192.png', size: 192, purpose: 'any', svg: ICON_SVG },
  { name: 'icon-512.png', size: 512, purpose: 'any', svg: ICON_SVG },
  { name: 'icon-maskable-512.png', size: 512, purpose: 'maskable', svg: MASKABLE_SVG },
];

/** The SVG's 32 units drawn at `size` px: sharp (librsvg) rasterises at the density asked for. */
async function rasterise(svg: string, size: number): Promise<Buffer> {
  return sharp(Buffer.from(svg), { density: (72 * size) / 32 })
    .resize(size, size)
    .png({ compressionLevel: 9, palette: true })
    .toBuffer();
}

let drawn: Promise<AppIcon[]> | undefined;

/**
 * The manifest's icons (192 and 512 px, and a maskable 512 px), drawn from the favicon's SVG
 * once per process, the first time the assets are built.
 */
export function appIcons(): Promise<AppIcon[]> {
  drawn ??= Promise.all(
    ICONS.map(async (icon) => ({
      name: icon.name,
      size: icon.size,
      purpose: icon.purpose,
      png: await rasterise(icon.svg, icon.size),
    })),
  );
  return drawn;
}
