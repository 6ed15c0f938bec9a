import type { ArgSchema } from '../rest/arg-schema.js';
import { POST_TYPES } from '../../../domain/content/post-types.js';
import { schemaLinks, writableProperties } from './post-schema.js';
import { resourceSchema, type ResourceSchema } from '../rest/rest-helpers.js';

const VEE = ['view', 'edit', 'embed'] as const;
const VE = ['view', 'edit'] as const;

/**
 * The fields of a menu item kept besides its title (wp_update_nav_menu_item's), written by a
 * save and by an autosave alike.
 */
export const MENU_ITEM_FIELDS = [
  'type',
  'object',
  'object_id',
  'url',
  'target',
  'attr_title',
  'description',
  'classes',
  'xfn',
] as const;

/** WP_REST_Menu_Items_Controller's item schema, its schema links and its write args. */
const MENU_ITEM_PROPERTIES: ResourceSchema['properties'] = {
  title: {
    description: 'The title for the object.',
    type: ['string', 'object'],
    context: VEE,
    properties: {
      raw: {
        description: 'Title for the object, as it exists in the database.',
        type: 'string',
        context: ['edit'],
      },
      rendered: {
        description: 'HTML title for the object, transformed for display.',
        type: 'string',
        context: VEE,
        readonly: true,
      },
    },
  },
  id: {
    description: 'Unique identifier for the object.',
    type: 'integer',
    default: 0,
    minimum: 0,
    context: VEE,
    readonly: true,
  },
  type_label: {
    description: 'The singular label used to describe this type of menu item.',
    type: 'string',
    context: VEE,
    readonly: true,
  },
  type: {
    description: 'The family of objects originally represented, such as "post_type" or "taxonomy".',
    type: 'string',
    enum: ['taxonomy', 'post_type', 'post_type_archive', 'custom'],
    context: VEE,
    default: 'custom',
  },
  status: {
    description: 'A named status for the object.',
    type: 'string',
    enum: ['publish', 'future', 'draft', 'pending', 'private'],
    default: 'publish',
    context: VEE,
  },
  parent: {
    description: 'The ID for the parent of the object.',
    type: 'integer',
    minimum: 0,
    default: 0,
    context: VEE,
  },
  attr_title: {
    description: 'Text for the title attribute of the link element for this menu item.',
    type: 'string',
    context: VEE,
  },
  classes: {
    description: 'Class names for the link element of this menu item.',
    type: 'array',
    items: { type: 'string' },
    context: VEE,
  },
  description: { description: 'The description of this menu item.', type: 'string', context: VEE },
  menu_order: {
    description:
      "The DB ID of the nav_menu_item that is this item's menu parent, if any, otherwise 0.",
    type: 'integer',
    minimum: 1,
    default: 1,
    context: VEE,
  },
  object: {
    description:
      'The type of object originally represented, such as "category", "post", or "attachment".',
    type: 'string',
    context: VEE,
  },
  object_id: {
    description: 'The database ID of the original object this menu item represents.',
    type: 'integer',
    minimum: 0,
    default: 0,
    context: VEE,
  },
  target: {
    description: 'The target attribute of the link element for this menu item.',
    type: 'string',
    enum: ['_blank', ''],
    context: VEE,
  },
  url: {
    description: 'The URL to which this menu item points.',
    type: 'string',
    format: 'uri',
    context: VEE,
  },
  xfn: {
    description: 'The XFN relationship expressed in the link of this menu item.',
    type: 'array',
    items: { type: 'string' },
    context: VEE,
  },
  invalid: {
    description: 'Whether the menu item represents an object that no longer exists.',
    type: 'boolean',
    context: VEE,
    readonly: true,
  },
  meta: { description: 'Meta fields.', type: 'object', context: VE, properties: {} },
  menus: {
    description: 'The terms assigned to the object in the nav_menu taxonomy.',
    type: 'integer',
    context: VE,
  },
};

/**
 * get_schema_links of WP_REST_Menu_Items_Controller: the posts' actions for a type without
 * author or sticky (publish, unfiltered HTML, assign and create in nav_menu) and the linked
 * object (the block editor reads them from OPTIONS).
 */
function menuItemSchemaLinks(): Array<Record<string, unknown>> {
  return [
    ...schemaLinks(POST_TYPES.nav_menu_item!),
    {
      rel: 'https://api.w.org/menu-item-object',
      title: 'Get linked object.',
      // Relative: the schema is built without the site address (WordPress writes rest_url()).
      href: '/wp-json/wp/v2/menu-items/{id}',
      targetSchema: { type: 'object', properties: { object: { type: 'integer' } } },
    },
  ];
}

export const MENU_ITEM_SCHEMA: ResourceSchema = Object.assign(
  resourceSchema('nav_menu_item', MENU_ITEM_PROPERTIES),
  { links: menuItemSchemaLinks() },
);

/** The menu items' write args (get_endpoint_args_for_item_schema): no defaults when updating. */
export function menuItemWriteArgs(creating: boolean): Record<string, ArgSchema> {
  const args = writableProperties(MENU_ITEM_SCHEMA.properties);
  if (!creating) for (const arg of Object.values(args)) delete arg.default;
  return args;
}
