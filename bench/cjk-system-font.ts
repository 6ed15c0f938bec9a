import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cjkFontFiles } from '../src/domain/circulation-images/cjk-font.js';

/**
 * A fontconfig file (for Chromium's FONTCONFIG_FILE) that adds the product's Noto Sans SC, the
 * TrueType faces the pictures are drawn in, to the machine's fonts: a browser as on a reader's
 * phone or desktop, which has a CJK system font, where this machine has none. Written into
 * `dir` (with fontconfig's cache), which the caller removes.
 */
export async function systemCjkFontConfig(dir: string): Promise<string> {
  const fonts = cjkFontFiles();
  const file = path.join(dir, 'fonts.conf');
  await writeFile(
    file,
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>` +
      `<include ignore_missing="yes">/etc/fonts/fonts.conf</include>` +
      `<dir>${path.dirname(fonts.regular)}</dir><dir>${path.dirname(fonts.bold)}</dir>` +
      `<cachedir>${path.join(dir, 'fontconfig-cache')}</cachedir></fontconfig>`,
  );
  return file;
}

/**
 * A fontconfig file that leaves out every font of the machine covering Chinese (fonts-noto-cjk,
 * say): a browser as on a minimal Linux or a container, which has none and draws the served
 * faces, whatever this machine has installed. Written into `dir` (with fontconfig's cache),
 * which the caller removes.
 */
export async function noCjkFontConfig(dir: string): Promise<string> {
  const file = path.join(dir, 'fonts-no-cjk.conf');
  await writeFile(
    file,
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>` +
      `<include ignore_missing="yes">/etc/fonts/fonts.conf</include>` +
      `<selectfont><rejectfont><pattern><patelt name="lang"><string>zh-cn</string></patelt>` +
      `</pattern></rejectfont></selectfont>` +
      `<cachedir>${path.join(dir, 'fontconfig-cache-no-cjk')}</cachedir></fontconfig>`,
  );
  return file;
}
