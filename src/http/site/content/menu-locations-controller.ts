import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import { contextArg, denied, resourceSchema } from '../rest/rest-helpers.js';

const EVE = ['embed', 'view', 'edit'] as const;

const MENU_LOCATION_SCHEMA = resourceSchema('menu-location', {
  name: {
    description: 'The name of the menu location.',
    type: 'string',
    context: EVE,
    readonly: true,
  },
  description: {
    description: 'The description of the menu location.',
    type: 'string',
    context: EVE,
    readonly: true,
  },
  menu: {
    description: 'The ID of the assigned menu.',
    type: 'integer',
    context: EVE,
    readonly: true,
  },
});

/** Menu locations are the theme's to see and assign (`edit_theme_options`). */
function mayView(request: RestRequest): true {
  if (!request.can('edit_theme_options')) {
    throw denied(request, 'rest_cannot_view', 'Sorry, you are not allowed to view menu locations.');
  }
  return true;
}

/**
 * /wp/v2/menu-locations (WP_REST_Menu_Locations_Controller). The site's theme places its menus
 * by name and registers no menu location (as WordPress 6.1's default theme), so the list is
 * empty (PHP's empty array, `[]`) and every location is `rest_menu_location_invalid`.
 */
export function registerMenuLocationsRoutes(kit: SiteKit): void {
  const schema = () => MENU_LOCATION_SCHEMA;
  kit.rest.register(
    'wp/v2',
    '/menu-locations',
    { methods: READABLE, args: { context: contextArg() }, permission: mayView, callback: () => [] },
    { schema },
  );
  kit.rest.register(
    'wp/v2',
    '/menu-locations/(?P<location>[\\w-]+)',
    {
      methods: READABLE,
      args: {
        location: {
          description: 'An alphanumeric identifier for the menu location.',
          type: 'string',
        },
        context: contextArg(),
      },
      permission: mayView,
      callback: () => {
        throw new RestError('rest_menu_location_invalid', 'Invalid menu location.', 404);
      },
    },
    { schema },
  );
}
