import {
  AppPasswordError,
  chunkAppPassword,
  createAppPassword,
  deleteAllAppPasswords,
  deleteAppPassword,
  findAppPassword,
  listAppPasswords,
  renameAppPassword,
  type AppPassword,
} from '../../../domain/content/app-passwords.js';
import { gmtDate } from '../../../domain/content/site-dates.js';
import { findSiteAccount } from '../../../domain/content/site-users.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { RestResponse } from '../rest/rest-response.js';
import { CREATABLE, DELETABLE, EDITABLE, READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import { writeArgs } from './post-schema.js';
import {
  contextArg,
  denied,
  filterByContext,
  resourceSchema,
  type Context,
} from '../rest/rest-helpers.js';

const VEE = ['view', 'edit', 'embed'] as const;

const SCHEMA = resourceSchema('application-password', {
  uuid: {
    description: 'The unique identifier for the application password.',
    type: 'string',
    format: 'uuid',
    context: VEE,
    readonly: true,
  },
  app_id: {
    description: 'A UUID provided by the application to uniquely identify it.',
    type: 'string',
    format: 'uuid',
    context: VEE,
  },
  name: {
    description: 'The name of the application password.',
    type: 'string',
    required: true,
    context: VEE,
    minLength: 1,
    pattern: '.*\\S.*',
  },
  password: {
    description: 'The generated password. Only available after adding an application.',
    type: 'string',
    context: ['edit'],
    readonly: true,
  },
  created: {
    description: 'The GMT date the application password was created.',
    type: 'string',
    format: 'date-time',
    context: ['view', 'edit'],
    readonly: true,
  },
  last_used: {
    description: 'The GMT date the application password was last used.',
    type: ['string', 'null'],
    format: 'date-time',
    context: ['view', 'edit'],
    readonly: true,
  },
  last_ip: {
    description: 'The IP address the application password was last used by.',
    type: ['string', 'null'],
    format: 'ip',
    context: ['view', 'edit'],
    readonly: true,
  },
});

/**
 * WP_REST_Application_Passwords_Controller: /wp/v2/users/{id|me}/application-passwords. A user
 * manages their own (administrators anyone's); the password is in the creation answer only.
 */
export function registerAppPasswordRoutes(kit: SiteKit): void {
  const { urls } = kit;
  const present = (a: AppPassword, context: Context, password?: string) => {
    const data: Record<string, unknown> = {
      uuid: a.uuid,
      app_id: a.appId,
      name: a.name,
      created: gmtDate(a.created),
      last_used: a.lastUsed ? gmtDate(a.lastUsed) : null,
      last_ip: a.lastIp,
    };
    if (password !== undefined) data.password = chunkAppPassword(password);
    const out = filterByContext(data, SCHEMA, context);
    out._links = {
      self: [{ href: urls.rest(`/wp/v2/users/${a.userId}/application-passwords/${a.uuid}`) }],
    };
    return out;
  };

  const userOf = async (request: RestRequest): Promise<number> => {
    const raw = String(request.urlParams.user_id);
    if (raw === 'me') {
      if (!request.user)
        throw new RestError('rest_not_logged_in', 'You are not currently logged in.', 401);
      return request.user.id;
    }
    const account = await findSiteAccount(kit.db, Number(raw));
    if (!account) throw new RestError('rest_user_invalid_id', 'Invalid user ID.', 404);
    return account.id;
  };

  const permission = (code: string, message: string) => async (request: RestRequest) => {
    const userId = await userOf(request);
    if (!request.user || (request.user.id !== userId && !request.can('edit_users')))
      throw denied(request, code, message);
    return true;
  };

  const itemOf = async (request: RestRequest): Promise<AppPassword> => {
    const item = await findAppPassword(kit.db, await userOf(request), String(request.get('uuid')));
    if (!item)
      throw new RestError(
        'rest_application_password_not_found',
        'Application password not found.',
        404,
      );
    return item;
  };

  const toRest = (err: unknown): never => {
    if (err instanceof AppPasswordError) {
      const status = err.code === 'application_passwords_duplicate_name' ? 409 : 400;
      throw new RestError(err.code, err.message, status);
    }
    throw err;
  };

  const writable = writeArgs(SCHEMA, true);
  const base = '/users/(?P<user_id>(?:[\\d]+|me))/application-passwords';
  kit.rest.register(
    'wp/v2',
    base,
    [
      {
        methods: READABLE,
        args: { context: contextArg() },
        permission: permission(
          'rest_cannot_list_application_passwords',
          'Sorry, you are not allowed to list application passwords for this user.',
        ),
        callback: async (r) =>
          (await listAppPasswords(kit.db, await userOf(r))).map((a) =>
            present(a, r.get<Context>('context')),
          ),
      },
      {
        methods: CREATABLE,
        args: writable,
        permission: permission(
          'rest_cannot_create_application_passwords',
          'Sorry, you are not allowed to create application passwords for this user.',
        ),
        callback: async (r) => {
          const userId = await userOf(r);
          const { password, item } = await createAppPassword(kit.db, {
            userId,
            name: r.get<string>('name'),
            appId: r.get<string | undefined>('app_id'),
          }).catch(toRest);
          return new RestResponse(present(item, 'edit', password), 201, {
            Location: urls.rest(`/wp/v2/users/${userId}/application-passwords/${item.uuid}`),
          });
        },
      },
      {
        methods: DELETABLE,
        permission: permission(
          'rest_cannot_delete_application_passwords',
          'Sorry, you are not allowed to delete application passwords for this user.',
        ),
        callback: async (r) => ({
          deleted: true,
          count: await deleteAllAppPasswords(kit.db, await userOf(r)),
        }),
      },
    ],
    { schema: () => SCHEMA },
  );
  kit.rest.register(
    'wp/v2',
    `${base}/introspect`,
    {
      methods: READABLE,
      args: { context: contextArg() },
      // get_current_item_permissions_check: the caller's own passwords only, whoever asks.
      permission: async (r) => {
        if ((await userOf(r)) !== r.user?.id) {
          throw denied(
            r,
            'rest_cannot_introspect_app_password_for_non_authenticated_user',
            'The authenticated application password can only be introspected for the current user.',
          );
        }
        return true;
      },
      callback: async (r) => {
        const uuid = r.user?.appPassword;
        if (!uuid) {
          throw new RestError(
            'rest_no_authenticated_app_password',
            'Cannot introspect application password.',
            404,
          );
        }
        const item = await findAppPassword(kit.db, await userOf(r), uuid);
        if (!item) {
          // Deleted since the request authenticated (WordPress answers 500 here; nothing failed).
          throw new RestError(
            'rest_application_password_not_found',
            'Application password not found.',
            404,
          );
        }
        return present(item, r.get<Context>('context'));
      },
    },
    { schema: () => SCHEMA },
  );
  const uuid: ArgSchema = {
    description: 'The unique identifier for the application password.',
    type: 'string',
  };
  kit.rest.register(
    'wp/v2',
    `${base}/(?P<uuid>[\\w\\-]+)`,
    [
      {
        methods: READABLE,
        args: { uuid, context: contextArg() },
        permission: permission(
          'rest_cannot_read_application_password',
          'Sorry, you are not allowed to read this application password.',
        ),
        callback: async (r) => present(await itemOf(r), r.get<Context>('context')),
      },
      {
        methods: EDITABLE,
        args: { uuid, name: { ...writable.name!, required: false }, app_id: writable.app_id! },
        permission: permission(
          'rest_cannot_edit_application_password',
          'Sorry, you are not allowed to edit this application password.',
        ),
        callback: async (r) => {
          const item = await itemOf(r);
          const renamed = r.has('name')
            ? await renameAppPassword(kit.db, item.userId, item.uuid, r.get<string>('name'))
            : item;
          return present(renamed ?? item, 'edit');
        },
      },
      {
        methods: DELETABLE,
        args: { uuid },
        permission: permission(
          'rest_cannot_delete_application_password',
          'Sorry, you are not allowed to delete this application password.',
        ),
        callback: async (r) => {
          const item = await itemOf(r);
          await deleteAppPassword(kit.db, item.userId, item.uuid);
          return { deleted: true, previous: present(item, 'edit') };
        },
      },
    ],
    { schema: () => SCHEMA },
  );
}
