import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryStorage } from '../../src/domain/media/directory-storage.js';
import {
  cropRegion,
  editImage,
  modifiersFromLegacy,
  type ImageModifier,
} from '../../src/domain/media/image-edit.js';
import { MediaError } from '../../src/domain/media/media-error.js';
import { coordinatePng, decodeCoordinates } from './coordinate-image.js';

const W = 640;
const H = 480;
const OPTIONS = { quality: 82, maxPixels: 10_000_000 };

/** Where each modifier sends a pixel, written out by hand: new (x, y) shows old (x', y'). */
type Geometry = { width: number; height: number; map: (x: number, y: number) => [number, number] };

function apply(g: Geometry, m: ImageModifier): Geometry {
  const { width: w, height: h, map } = g;
  if (m.type === 'flip') {
    const { horizontal, vertical } = m.args.flip;
    return {
      width: w,
      height: h,
      map: (x, y) => map(horizontal ? w - 1 - x : x, vertical ? h - 1 - y : y),
    };
  }
  if (m.type === 'rotate') {
    const a = ((m.args.angle % 360) + 360) % 360;
    if (a === 90) return { width: h, height: w, map: (x, y) => map(y, h - 1 - x) };
    if (a === 180) return { width: w, height: h, map: (x, y) => map(w - 1 - x, h - 1 - y) };
    if (a === 270) return { width: h, height: w, map: (x, y) => map(w - 1 - y, x) };
    return g;
  }
  const left = Math.round((w * m.args.left) / 100);
  const top = Math.round((h * m.args.top) / 100);
  return {
    width: Math.round((w * m.args.width) / 100),
    height: Math.round((h * m.args.height) / 100),
    map: (x, y) => map(left + x, top + y),
  };
}

const MODIFIERS: Record<string, ImageModifier> = {
  flipH: { type: 'flip', args: { flip: { horizontal: true, vertical: false } } },
  flipV: { type: 'flip', args: { flip: { horizontal: false, vertical: true } } },
  flipHV: { type: 'flip', args: { flip: { horizontal: true, vertical: true } } },
  rot90: { type: 'rotate', args: { angle: 90 } },
  rot180: { type: 'rotate', args: { angle: 180 } },
  rot270: { type: 'rotate', args: { angle: 270 } },
  rotMinus90: { type: 'rotate', args: { angle: -90 } },
  crop: { type: 'crop', args: { left: 50, top: 10, width: 10, height: 5 } },
  cropBig: { type: 'crop', args: { left: 12.5, top: 25, width: 75, height: 50 } },
};

let dir: string;
let storage: DirectoryStorage;
let source: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'emutrack-edit-'));
  storage = new DirectoryStorage(dir);
  source = path.join(dir, 'source.png');
  await writeFile(source, await coordinatePng(W, H));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(modifiers: ImageModifier[]): Promise<void> {
  let expected: Geometry = { width: W, height: H, map: (x, y) => [x, y] };
  for (const m of modifiers) expected = apply(expected, m);
  const edited = await editImage(storage, source, 'image/png', modifiers, OPTIONS);
  try {
    const got = await decodeCoordinates(edited.scratchFile);
    expect([got.width, got.height]).toEqual([expected.width, expected.height]);
    expect([edited.width, edited.height]).toEqual([expected.width, expected.height]);
    const wrong: string[] = [];
    for (let y = 0; y < got.height; y++) {
      for (let x = 0; x < got.width; x++) {
        const [sx, sy] = got.sourceAt(x, y);
        const [ex, ey] = expected.map(x, y);
        if (sx !== ex || sy !== ey)
          wrong.push(`(${x},${y}) shows (${sx},${sy}), expected (${ex},${ey})`);
        if (wrong.length > 3) break;
      }
      if (wrong.length > 3) break;
    }
    expect(wrong).toEqual([]);
  } finally {
    await rm(edited.scratchFile, { force: true });
  }
}

describe('image edits', () => {
  it('crops 50/10/10/5 percent of 640x480 to the 64x24 region at (320, 48)', async () => {
    expect(cropRegion(640, 480, { left: 50, top: 10, width: 10, height: 5 })).toEqual({
      left: 320,
      top: 48,
      width: 64,
      height: 24,
    });
    const edited = await editImage(storage, source, 'image/png', [MODIFIERS.crop!], OPTIONS);
    const got = await decodeCoordinates(edited.scratchFile);
    expect([got.width, got.height]).toEqual([64, 24]);
    expect(got.sourceAt(0, 0)).toEqual([320, 48]);
    expect(got.sourceAt(63, 23)).toEqual([383, 71]);
    await rm(edited.scratchFile);
  });

  it('rotates clockwise: the top-left pixel of a 90 degree turn was the bottom-left one', async () => {
    const edited = await editImage(storage, source, 'image/png', [MODIFIERS.rot90!], OPTIONS);
    const got = await decodeCoordinates(edited.scratchFile);
    expect([got.width, got.height]).toEqual([480, 640]);
    expect(got.sourceAt(0, 0)).toEqual([0, 479]);
    expect(got.sourceAt(479, 0)).toEqual([0, 0]);
    await rm(edited.scratchFile);
  });

  for (const [name, m] of Object.entries(MODIFIERS)) {
    it(`applies ${name} alone`, async () => {
      await check([m]);
    });
  }

  const names = Object.keys(MODIFIERS);
  it('applies every ordered pair of modifiers in order', async () => {
    for (const a of names) for (const b of names) await check([MODIFIERS[a]!, MODIFIERS[b]!]);
  }, 120_000);

  it('applies longer chains in order (crop after rotate is not rotate after crop)', async () => {
    await check([MODIFIERS.rot90!, MODIFIERS.crop!, MODIFIERS.flipH!]);
    await check([MODIFIERS.crop!, MODIFIERS.rot90!, MODIFIERS.flipV!]);
    await check([MODIFIERS.cropBig!, MODIFIERS.rot270!, MODIFIERS.cropBig!, MODIFIERS.flipHV!]);
  });

  it('turns the deprecated rotation/x/y/width/height into rotate then crop', async () => {
    const mods = modifiersFromLegacy({ rotation: 90, x: 50, y: 10, width: 10, height: 5 });
    expect(mods).toEqual([
      { type: 'rotate', args: { angle: 90 } },
      { type: 'crop', args: { left: 50, top: 10, width: 10, height: 5 } },
    ]);
    // Rotated 480x640, then 10% x 5% at (240, 64): 48 x 32.
    const edited = await editImage(storage, source, 'image/png', mods, OPTIONS);
    const got = await decodeCoordinates(edited.scratchFile);
    expect([got.width, got.height]).toEqual([48, 32]);
    expect(got.sourceAt(0, 0)).toEqual([64, 479 - 240]);
    await rm(edited.scratchFile);
    await check(mods);
  });

  it('rotates by other angles onto a larger canvas', async () => {
    const edited = await editImage(
      storage,
      source,
      'image/png',
      [{ type: 'rotate', args: { angle: 45 } }],
      OPTIONS,
    );
    const side = (640 + 480) * Math.SQRT1_2;
    expect(Math.abs(edited.width - side)).toBeLessThanOrEqual(2);
    expect(Math.abs(edited.height - side)).toBeLessThanOrEqual(2);
    await rm(edited.scratchFile);
  });

  it('refuses an edit that changes nothing with rest_image_not_edited', async () => {
    const none: ImageModifier[] = [
      { type: 'flip', args: { flip: { horizontal: false, vertical: false } } },
      { type: 'rotate', args: { angle: 360 } },
      { type: 'crop', args: { left: 0, top: 0, width: 100, height: 100 } },
    ];
    const err = await editImage(storage, source, 'image/png', none, OPTIONS).catch((e) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: 'rest_image_not_edited', status: 400 });
  });
});
