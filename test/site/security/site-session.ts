import { SITE_ASSET_PATHS } from '../../../src/http/site/theme/site-assets.js';
import { THEME_WEB_FONT } from '../../../src/http/site/theme/theme-fonts.js';
import { PAGE_FONT_BASE } from '../../../src/http/site/theme/page-font-subset.js';
import { issueCredential } from '../../../src/domain/accounts/credentials.js';
import { defaultKeyScopes } from '../../../src/domain/accounts/scopes.js';
import type { Db } from '../../../src/shared/db/db.js';

/**
 * A web session of the account (what /wp-login.php sets): the `token` cookie's secret. Issued
 * directly, so that tests of what a signed-in reader sees do not depend on the sign-in form.
 */
export async function siteSessionSecret(db: Db, userId: number): Promise<string> {
  const { secret } = await issueCredential(db, {
    userId: String(userId),
    issuer: 'webapp',
    name: 'test session',
    scopes: [...defaultKeyScopes('user')],
    dailyTokenLimit: 1000,
    expiresAt: new Date(Date.now() + 86_400_000),
  });
  return secret;
}

/** The elements of the themes' own page frame that the safety check accepts. */
export function themeFrameElement(name: string, attributes: string): boolean {
  if (name === 'meta') return !/http-equiv/i.test(attributes);
  if (name === 'link')
    return (
      /rel="(https:\/\/api\.w\.org\/|alternate)"/.test(attributes) ||
      attributes.trim() === `rel="stylesheet" href="${SITE_ASSET_PATHS.css}"` ||
      // The served CJK face's rules (only fetched by a browser with no CJK font) and the icon.
      attributes.trim() === `rel="stylesheet" href="${THEME_WEB_FONT.stylesheetUrl}"` ||
      // The page's own subset of that face, preloaded (page-font-subset.ts): a hash URL of the site.
      new RegExp(
        `^rel="preload" href="${PAGE_FONT_BASE}/[0-9a-f]{20}\\.woff2" as="font" type="font/woff2" crossorigin$`,
      ).test(attributes.trim()) ||
      attributes.trim() === `rel="icon" href="${SITE_ASSET_PATHS.icon}" type="image/svg+xml"`
    );
  // The header's search box (manual-chrome.ts): a GET form to the site's front page.
  if (name === 'form') return /^ role="search" method="get" class="site-search" /.test(attributes);
  if (name === 'input') return /^ type="search" id="site-search-input" name="s" /.test(attributes);
  return name === 'style';
}

/** The theme's one script file (the search box's live results), served by the site itself. */
export function themeScriptFile(attributes: string, text: string): boolean {
  return attributes.trim() === `src="${SITE_ASSET_PATHS.searchScript}" defer` && text === '';
}

/** The one inline script a theme prints: wpApiSettings of a signed-in reader, with the CSP nonce. */
export function wpApiSettingsScript(attributes: string, text: string): boolean {
  return (
    themeScriptFile(attributes, text) ||
    (/^\s*nonce="[A-Za-z0-9+/=]{16,}"\s*$/.test(attributes) &&
      /^var wpApiSettings=\{[^<]*\};$/.test(text))
  );
}
