import { describe, expect, it } from 'vitest';
import { renderClassicTheme } from '../../../src/http/site/theme/classic-theme.js';
import type { ThemeContext } from '../../../src/http/site/theme/site-theme.js';

const context: ThemeContext = {
  siteName: 'emutrack',
  siteDescription: '',
  siteUrl: 'http://docs.example',
  restRoot: 'http://docs.example/wp-json/',
  language: 'zh-CN',
  user: null,
  nav: [
    {
      title: 'Lines',
      url: 'http://docs.example/lines/',
      children: [
        { title: 'Beijing-Shanghai', url: 'http://docs.example/lines/jinghu/', children: [] },
      ],
    },
    { title: 'About', url: 'http://docs.example/about/', children: [] },
  ],
};

describe('the classic theme', () => {
  it('nests a menu item’s children in one list inside its item, as wp_nav_menu does', () => {
    const html = renderClassicTheme({ kind: 'not-found', path: '/x' }, context);
    const nav = /<nav aria-label="[^"]*">(.*?)<\/nav>/s.exec(html)?.[1];
    expect(nav).toBe(
      '<ul>' +
        '<li><a href="http://docs.example/lines/">Lines</a>' +
        '<ul><li><a href="http://docs.example/lines/jinghu/">Beijing-Shanghai</a></li></ul></li>' +
        '<li><a href="http://docs.example/about/">About</a></li>' +
        '</ul>',
    );
  });
});
