import { createRequire } from 'node:module';

/**
 * The font the pictures are drawn in: Noto Sans SC (SIL Open Font License), a CJK sans-serif
 * that covers the Chinese station names. It comes as static TrueType files in the npm package
 * @expo-google-fonts/noto-sans-sc, so `npm ci` installs it everywhere the code runs (tests, CI,
 * the container) and nothing is fetched at run time; resvg cannot read WOFF2, which is all the
 * web-font packages ship.
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
