/** WordPress 6.1's user schema (WP_REST_Users_Controller::get_item_schema), as the site fills it. */
import type { ArgSchema } from '../rest/arg-schema.js';
import { resourceSchema } from '../rest/rest-helpers.js';

const VEE = ['embed', 'view', 'edit'] as const;
const E = ['edit'] as const;

/**
 * A user's locale when they chose none: get_user_locale falls back to the site's, and the site,
 * like the oracle WordPress, installs no language packs (en_US).
 */
/**
 * WordPress's avatar URLs property (rest_get_avatar_sizes: 24, 48 and 96 px), for users and
 * comment authors; each says its contexts in its own order, which the schema's JSON keeps.
 */
export function avatarUrlsSchema(
  description: string,
  context: ArgSchema['context'],
  sizeContext: ArgSchema['context'],
): ArgSchema {
  return {
    description,
    type: 'object',
    context,
    readonly: true,
    properties: Object.fromEntries(
      [24, 48, 96].map((size) => [
        String(size),
        {
          description: `Avatar URL with image size of ${size} pixels.`,
          type: 'string',
          format: 'uri',
          context: sizeContext,
        },
      ]),
    ),
  };
}

export const SITE_LOCALE = 'en_US';

export const USER_SCHEMA = resourceSchema('user', {
  id: {
    description: 'Unique identifier for the user.',
    type: 'integer',
    context: VEE,
    readonly: true,
  },
  username: {
    description: 'Login name for the user.',
    type: 'string',
    context: E,
    required: true,
  },
  name: { description: 'Display name for the user.', type: 'string', context: VEE },
  first_name: { description: 'First name for the user.', type: 'string', context: E },
  last_name: { description: 'Last name for the user.', type: 'string', context: E },
  email: {
    description: 'The email address for the user.',
    type: 'string',
    format: 'email',
    context: E,
    required: true,
  },
  url: { description: 'URL of the user.', type: 'string', format: 'uri', context: VEE },
  description: { description: 'Description of the user.', type: 'string', context: VEE },
  link: {
    description: 'Author URL of the user.',
    type: 'string',
    format: 'uri',
    context: VEE,
    readonly: true,
  },
  locale: {
    description: 'Locale for the user.',
    type: 'string',
    enum: ['', SITE_LOCALE],
    context: E,
  },
  nickname: { description: 'The nickname for the user.', type: 'string', context: E },
  slug: { description: 'An alphanumeric identifier for the user.', type: 'string', context: VEE },
  registered_date: {
    description: 'Registration date for the user.',
    type: 'string',
    format: 'date-time',
    context: E,
    readonly: true,
  },
  roles: {
    description: 'Roles assigned to the user.',
    type: 'array',
    items: { type: 'string' },
    context: E,
  },
  password: {
    description: 'Password for the user (never included).',
    type: 'string',
    // Never displayed.
    context: [],
    required: true,
  },
  capabilities: {
    description: 'All capabilities assigned to the user.',
    type: 'object',
    context: E,
    readonly: true,
  },
  extra_capabilities: {
    description: 'Any extra capabilities assigned to the user.',
    type: 'object',
    context: E,
    readonly: true,
  },
  avatar_urls: avatarUrlsSchema('Avatar URLs for the user.', VEE, VEE),
  meta: {
    description: 'Meta fields.',
    type: 'object',
    context: ['view', 'edit'],
    properties: {
      // The block editor's preferences (WordPress 6.1 registers it for every user).
      persisted_preferences: {
        type: 'object',
        context: E,
        properties: {
          _modified: {
            description: 'The date and time the preferences were updated.',
            type: 'string',
            format: 'date-time',
            readonly: false,
          },
        },
        additionalProperties: true,
      },
    },
  },
});
