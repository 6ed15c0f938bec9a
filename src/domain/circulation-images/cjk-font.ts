import { createRequire } from 'node:module';

/**
 * The font the pictures are drawn in: Noto Sans SC (SIL Open Font License), a CJK sans-serif
 * that covers the Chinese station names. It comes as static TrueType files in the npm package
 * @expo-google-fonts/noto-sans-sc, so `npm ci` installs it everywhere the code runs (tests, CI,
 * the container) and nothing is fetched at run time. The package is made for Expo apps, but it
 * is only files (Google Fonts' TrueType, no code, no dependencies), and no package meant for the
 * web or servers fits better: resvg reads TrueType and OpenType only, and
 * @fontsource/noto-sans-sc, @fontsource-variable/noto-sans-sc and noto-sans-sc ship WOFF2 (and
 * WOFF) alone; node-source-han-sans-sc ships OpenType (CFF) files that resvg and pdfkit both
 * draw, but it is 205 MB for seven weights of an older Source Han Sans (2.001), and pdfkit
 * embeds its CFF subset about five times slower and twelve times larger (52 KB against 4 KB for
 * one line) than the TrueType one.
 */
export const CJK_FONT_FAMILY = 'Noto Sans SC';

export interface CjkFontFiles {
  regular: string;
  bold: string;
}

const require = createRequire(import.meta.url);

/** Paths of the regular and bold TrueType files. */
export function cjkFontFiles(): CjkFontFiles {
  return {
    regular:
      require.resolve('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf'),
    bold: require.resolve('@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf'),
  };
}
