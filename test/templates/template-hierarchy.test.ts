import { describe, expect, it } from 'vitest';
import { templateHierarchy } from '../../src/domain/templates/template-hierarchy.js';

describe('templateHierarchy (get_template_hierarchy)', () => {
  it.each([
    ['single-post-hello', {}, ['single-post-hello', 'single-post', 'single', 'singular', 'index']],
    ['single-post', {}, ['single-post', 'single', 'singular', 'index']],
    ['single-page-about', {}, ['single-page-about', 'single-page', 'single', 'singular', 'index']],
    ['page-about', {}, ['page-about', 'page', 'singular', 'index']],
    ['category-news', {}, ['category-news', 'category', 'archive', 'index']],
    ['tag-g1', {}, ['tag-g1', 'tag', 'archive', 'index']],
    ['author-admin', {}, ['author-admin', 'author', 'archive', 'index']],
    [
      'taxonomy-post_tag-x',
      {},
      ['taxonomy-post_tag-x', 'taxonomy-post_tag', 'taxonomy', 'archive', 'index'],
    ],
    ['date', {}, ['date', 'archive', 'index']],
    ['attachment', {}, ['attachment', 'single', 'singular', 'index']],
    ['front-page', {}, ['front-page', 'home', 'index']],
    ['index', {}, ['index']],
    ['404', {}, ['404', 'index']],
    ['my-landing', { isCustom: true }, ['page', 'singular', 'index']],
    [
      'single-post-hello',
      { templatePrefix: 'single-post' },
      ['single-post-hello', 'single-post', 'single', 'singular', 'index'],
    ],
    [
      'category-trains',
      { templatePrefix: 'category' },
      ['category-trains', 'category', 'archive', 'index'],
    ],
  ] as const)('%s %j', (slug, options, expected) => {
    expect(templateHierarchy(slug, options)).toEqual(expected);
  });
});
