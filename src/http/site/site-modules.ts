import { contentModule } from './content/content-module.js';
import { createMediaModule } from './media/media-module.js';
import { createOembedModule } from './oembed/oembed-module.js';
import type { SiteModule } from './site-kit.js';
import { createTemplatesModule } from './templates/templates-module.js';

/**
 * The site's modules in registration order (route order matters: the first matching route
 * wins). Media, templates and oEmbed (src/http/site/media, templates, oembed) add theirs here.
 */
export const siteModules: readonly SiteModule[] = [
  contentModule,
  createMediaModule(),
  createTemplatesModule(),
  createOembedModule(),
];
