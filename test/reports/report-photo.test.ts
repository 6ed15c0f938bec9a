import QRCode from 'qrcode';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { checkReportPhoto, MAX_PHOTO_BYTES } from '../../src/domain/reports/report-photo.js';

function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

function pngHeaderOnly(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A report's photo: real images only, no photo bombs, no EXIF kept, its QR code read. */
describe('checkReportPhoto', () => {
  it('reads the QR code and strips EXIF (the location) from what is kept', async () => {
    const qr = await QRCode.toBuffer('CR400AF-Z-0216-02-03F', { width: 300, margin: 4 });
    const withExif = await sharp(qr)
      .jpeg()
      .withExif({ IFD0: { Make: 'PhoneCo', Copyright: 'GPS 31.2,121.4' } })
      .toBuffer();
    expect((await sharp(withExif).metadata()).exif).toBeDefined();
    const kept = await checkReportPhoto(withExif);
    expect(kept.qrText).toBe('CR400AF-Z-0216-02-03F');
    const meta = await sharp(kept.jpeg).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.exif).toBeUndefined();
    expect(kept.jpeg.includes(Buffer.from('PhoneCo'))).toBe(false);
  });

  it('refuses an HTML page named as a PNG, a PNG header on HTML, a photo bomb and an oversized file', async () => {
    await expect(
      checkReportPhoto(Buffer.from('<html><script>alert(1)</script></html>')),
    ).rejects.toThrow('photo: not a JPEG, PNG or WebP image');
    const fakePng = Buffer.concat([
      Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
      Buffer.from('<html><script>alert(1)</script></html>'),
    ]);
    await expect(checkReportPhoto(fakePng)).rejects.toThrow('photo: not a readable image');
    // A PNG whose header says 30000 x 30000 (2.7 GB once decoded) in a few dozen bytes.
    const bomb = pngHeaderOnly(30000, 30000);
    expect(bomb.length).toBeLessThan(MAX_PHOTO_BYTES);
    await expect(checkReportPhoto(bomb)).rejects.toThrow(/photo: (more than|not a readable)/);
    await expect(checkReportPhoto(Buffer.alloc(MAX_PHOTO_BYTES + 1, 0xff))).rejects.toThrow(
      'photo: larger than',
    );
  });
});
