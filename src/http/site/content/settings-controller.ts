import { listSiteAccounts } from '../../../domain/content/site-users.js';
import { defaultTermId } from '../../../domain/content/terms-store.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import { resourceSchema } from '../rest/rest-helpers.js';

/** A setting of WordPress 6.1's register_initial_settings, as its schema shows it. */
function setting(type: 'string' | 'integer' | 'boolean', description: string, extra = {}) {
  return { type, description, default: null, ...extra } as ArgSchema;
}

const SETTINGS_SCHEMA = resourceSchema('settings', {
  title: setting('string', 'Site title.'),
  description: setting('string', 'Site tagline.'),
  url: setting('string', 'Site URL.', { format: 'uri' }),
  email: setting('string', 'This address is used for admin purposes, like new user notification.', {
    format: 'email',
  }),
  timezone: setting('string', 'A city in the same timezone as you.'),
  date_format: setting('string', 'A date format for all date strings.'),
  time_format: setting('string', 'A time format for all time strings.'),
  start_of_week: setting('integer', 'A day number of the week that the week should start on.'),
  language: setting('string', 'WordPress locale code.', { default: 'en_US' }),
  use_smilies: setting('boolean', 'Convert emoticons like :-) and :-P to graphics on display.', {
    default: true,
  }),
  default_category: setting('integer', 'Default post category.'),
  default_post_format: setting('string', 'Default post format.'),
  posts_per_page: setting('integer', 'Blog pages show at most.', { default: 10 }),
  show_on_front: setting('string', 'What to show on the front page'),
  page_on_front: setting(
    'integer',
    'The ID of the page that should be displayed on the front page',
  ),
  page_for_posts: setting('integer', 'The ID of the page that should display the latest posts'),
  default_ping_status: setting(
    'string',
    'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.',
    { enum: ['open', 'closed'] },
  ),
  default_comment_status: setting('string', 'Allow people to submit comments on new posts.', {
    enum: ['open', 'closed'],
  }),
  site_logo: setting('integer', 'Site logo.'),
  site_icon: setting('integer', 'Site icon.'),
});

/**
 * GET /wp/v2/settings (WP_REST_Settings_Controller): the site's settings for those who may
 * manage options (administrators); anyone else is refused with `rest_forbidden`, 401 signed out
 * and 403 signed in. The values are the site's facts as its configuration and install make
 * them (name and tagline from the configuration, Asia/Shanghai, posts on the front page, the
 * first administrator's address as WordPress keeps the installer's). Read only: the site's name
 * and tagline are its configuration, so the route has no writing methods.
 */
export function registerSettingsRoute(kit: SiteKit): void {
  kit.rest.register(
    'wp/v2',
    '/settings',
    {
      methods: READABLE,
      args: {},
      permission: (request) => request.can('manage_options'),
      callback: async () => {
        const admins = await listSiteAccounts(kit.db, {
          roles: ['administrator'],
          orderby: 'id',
          order: 'asc',
          limit: 1,
          offset: 0,
        });
        return {
          title: kit.config.SITE_NAME,
          description: kit.config.SITE_DESCRIPTION,
          url: kit.urls.site,
          email: admins.items[0]?.email ?? '',
          timezone: 'Asia/Shanghai',
          date_format: 'F j, Y',
          time_format: 'g:i a',
          start_of_week: 1,
          language: '',
          use_smilies: true,
          default_category: (await defaultTermId(kit.db, 'category')) ?? 0,
          default_post_format: '0',
          posts_per_page: 10,
          show_on_front: 'posts',
          page_on_front: 0,
          page_for_posts: 0,
          default_ping_status: 'open',
          default_comment_status: 'open',
          site_logo: null,
          site_icon: 0,
        };
      },
    },
    { schema: () => SETTINGS_SCHEMA },
  );
}
