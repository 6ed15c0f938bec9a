import { AccountError } from '../../../domain/accounts/account-error.js';
import { assertUsername, findUserByEmail } from '../../../domain/accounts/users.js';
import {
  isSiteRole,
  ROLE_CAPABILITIES,
  type SiteRole,
} from '../../../domain/content/site-roles.js';
import {
  createSiteAccount,
  deleteSiteAccount,
  updateSiteAccount,
  type SiteProfileChanges,
} from '../../../domain/content/site-user-writes.js';
import { findSiteAccount, type SiteAccount } from '../../../domain/content/site-users.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { RestResponse } from '../rest/rest-response.js';
import { CREATABLE, DELETABLE, EDITABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import { denied, type Context, type ResourceSchema } from '../rest/rest-helpers.js';

type Present = (account: SiteAccount, context: Context) => Record<string, unknown>;

/** sanitize_text_field: no tags, no line breaks or runs of spaces, trimmed. */
const textField = (value: unknown) =>
  String(value)
    .replace(/<[^>]*>/g, '')
    .replace(/[\r\n\t ]+/g, ' ')
    .trim();

/** A parameter's own refusal inside rest_invalid_param, as WordPress reports a sanitize_callback's. */
function invalidParam(param: string, code: string, message: string): RestError {
  return new RestError('rest_invalid_param', `Invalid parameter(s): ${param}`, {
    status: 400,
    params: { [param]: message },
    details: { [param]: { code, message, data: { status: 400 } } },
  });
}

/** check_username: WordPress's validate_username (strict sanitize_user), then the accounts' own rule. */
function checkUsername(value: unknown): string {
  const username = String(value);
  try {
    assertUsername(username);
  } catch (err) {
    if (!(err instanceof AccountError)) throw err;
    throw new RestError(
      'rest_user_invalid_username',
      `This username is invalid because it uses illegal characters. Please enter a valid username (${err.message}).`,
      400,
    );
  }
  return username;
}

/** check_user_password; the account policy's length and strength follow when it is written. */
function checkPassword(value: unknown): string {
  const password = String(value);
  if (password === '') {
    throw new RestError('rest_user_invalid_password', 'Passwords cannot be empty.', 400);
  }
  if (password.includes('\\')) {
    throw new RestError(
      'rest_user_invalid_password',
      'Passwords cannot contain the "\\" character.',
      400,
    );
  }
  return password;
}

/** esc_url_raw's protocols, as far as a profile link needs: http(s) or nothing. */
function profileUrl(value: unknown): string {
  const url = String(value).trim();
  return /^https?:\/\//i.test(url) ? url : '';
}

const SANITIZE: Record<string, ArgSchema['sanitize']> = {
  username: checkUsername,
  password: checkPassword,
  name: textField,
  first_name: textField,
  last_name: textField,
  nickname: textField,
  description: (v) => String(v).replace(/<[^>]*>/g, ''),
  url: profileUrl,
};

/** get_endpoint_args_for_item_schema: the writable properties, required ones only on create. */
function writeArgs(schema: ResourceSchema, creating: boolean): Record<string, ArgSchema> {
  const args: Record<string, ArgSchema> = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    if (prop.readonly) continue;
    const arg: ArgSchema = { description: prop.description, type: prop.type };
    for (const key of ['format', 'enum', 'items', 'properties', 'additionalProperties'] as const) {
      if (prop[key] !== undefined) Object.assign(arg, { [key]: prop[key] });
    }
    if (creating && prop.required === true) arg.required = true;
    const sanitize = SANITIZE[name];
    if (sanitize) arg.sanitize = sanitize;
    args[name] = arg;
  }
  return args;
}

/** What the accounts domain refused, as WordPress names it. */
function toRest(err: unknown, creating: boolean): never {
  if (err instanceof AccountError) {
    switch (err.code) {
      case 'invalid_param': {
        const field = err.field ?? 'password';
        const code =
          field === 'username'
            ? 'rest_user_invalid_username'
            : field === 'email'
              ? 'rest_invalid_email'
              : 'rest_user_invalid_password';
        throw invalidParam(field, code, err.message);
      }
      // WordPress answers these two with 500 (wp_insert_user's errors carry no status); a
      // taken name is the caller's input, so 400 here, with WordPress's codes.
      case 'username_taken':
        throw new RestError('existing_user_login', 'Sorry, that username already exists!', 400);
      case 'email_taken':
        throw creating
          ? new RestError('existing_user_email', 'Sorry, that email address is already used!', 400)
          : new RestError('rest_user_invalid_email', 'Invalid email address.', 400);
      case 'user_not_found':
        throw new RestError('rest_user_invalid_id', 'Invalid user ID.', 404);
      default:
        break;
    }
  }
  throw err;
}

function profileChanges(r: RestRequest): SiteProfileChanges {
  const meta = r.get<Record<string, unknown> | undefined>('meta');
  return {
    displayName: r.get<string | undefined>('name'),
    firstName: r.get<string | undefined>('first_name'),
    lastName: r.get<string | undefined>('last_name'),
    nickname: r.get<string | undefined>('nickname'),
    description: r.get<string | undefined>('description'),
    url: r.get<string | undefined>('url'),
    locale: r.get<string | undefined>('locale'),
    meta:
      meta && meta.persisted_preferences !== undefined
        ? { persisted_preferences: meta.persisted_preferences }
        : undefined,
  };
}

/**
 * WP_REST_Users_Controller, write side, on the site's accounts: POST /users (create_users),
 * POST/PUT/PATCH and DELETE on /users/{id} and /users/me (edit_user: oneself or edit_users;
 * promote_users for roles; delete_users). An account that operates the product (account role
 * admin) is edited or deleted by itself or another operator only: a site administrator is not
 * thereby an operator.
 */
export function registerUserWriteEndpoints(
  kit: SiteKit,
  schema: ResourceSchema,
  present: Present,
): void {
  const targets = new WeakMap<RestRequest, SiteAccount>();
  const targetOf = async (r: RestRequest): Promise<SiteAccount> => {
    const known = targets.get(r);
    if (known) return known;
    const id = r.urlParams.id === undefined ? (r.user?.id ?? 0) : Number(r.get('id'));
    const account = await findSiteAccount(kit.db, id);
    if (!account) throw new RestError('rest_user_invalid_id', 'Invalid user ID.', 404);
    targets.set(r, account);
    return account;
  };

  const guardsOperator = async (r: RestRequest, target: SiteAccount): Promise<boolean> => {
    if (target.accountRole !== 'admin' || r.user?.id === target.id) return false;
    const caller = r.user ? await findSiteAccount(kit.db, r.user.id) : undefined;
    return caller?.accountRole !== 'admin';
  };

  /** check_role_update: known roles, one here; nobody drops their own edit_users. */
  const checkRoles = (r: RestRequest, targetId: number | null): SiteRole | undefined => {
    const roles = r.get<string[] | undefined>('roles');
    if (!roles || roles.length === 0) return undefined;
    for (const role of roles) {
      if (!isSiteRole(role)) {
        throw new RestError('rest_user_invalid_role', `The role ${role} does not exist.`, 400);
      }
      if (targetId === r.user?.id && !ROLE_CAPABILITIES[role].has('edit_users')) {
        throw denied(
          r,
          'rest_user_invalid_role',
          'Sorry, you are not allowed to give users that role.',
        );
      }
    }
    if (roles.length > 1) {
      // WordPress allows several roles; an account holds one site role here.
      throw new RestError('rest_user_invalid_role', 'A user holds one role on this site.', 400);
    }
    return roles[0] as SiteRole;
  };

  const updatePermission = async (r: RestRequest) => {
    const target = await targetOf(r);
    const roles = r.get<string[] | undefined>('roles');
    if (roles && roles.length > 0) {
      if (!r.can('promote_users') || (await guardsOperator(r, target))) {
        throw denied(
          r,
          'rest_cannot_edit_roles',
          'Sorry, you are not allowed to edit roles of this user.',
        );
      }
      const given = new Set([...Object.keys(r.query), ...Object.keys(r.body)]);
      given.delete('id');
      if (given.size === 1 && given.has('roles')) return true;
    }
    const mayEdit = r.user !== null && (r.user.id === target.id || r.can('edit_users'));
    if (!mayEdit || (await guardsOperator(r, target))) {
      throw denied(r, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this user.');
    }
    return true;
  };

  const update = async (r: RestRequest) => {
    const target = await targetOf(r);
    const email = r.get<string | undefined>('email');
    // WordPress checks the address's owner first.
    const owner = email ? await findUserByEmail(kit.db, email) : undefined;
    if (owner && Number(owner.userId) !== target.id) {
      throw new RestError('rest_user_invalid_email', 'Invalid email address.', 400);
    }
    const username = r.get<string | undefined>('username');
    if (username && username !== target.username) {
      throw new RestError('rest_user_invalid_argument', "Username isn't editable.", 400);
    }
    const slug = r.get<string | undefined>('slug');
    if (slug && slug !== target.username.toLowerCase()) {
      // A user's slug is their lower-case username here (author links, ?slug=): not editable.
      throw new RestError('rest_user_invalid_slug', 'Invalid slug.', 400);
    }
    const role = checkRoles(r, target.id);
    const password = r.get<string | undefined>('password');
    await updateSiteAccount(kit.db, target.id, {
      email: email !== undefined && email !== target.email ? email : undefined,
      role,
      profile: profileChanges(r),
      password: password === undefined ? undefined : { value: password, username: target.username },
    }).catch((err: unknown) => toRest(err, false));
    return present((await findSiteAccount(kit.db, target.id))!, 'edit');
  };

  const deletePermission = async (r: RestRequest) => {
    const target = await targetOf(r);
    if (!r.can('delete_users') || (await guardsOperator(r, target))) {
      throw denied(r, 'rest_user_cannot_delete', 'Sorry, you are not allowed to delete this user.');
    }
    return true;
  };

  const remove = async (r: RestRequest) => {
    const target = await targetOf(r);
    if (r.get('force') !== true) {
      throw new RestError(
        'rest_trash_not_supported',
        "Users do not support trashing. Set 'force=true' to delete.",
        501,
      );
    }
    const reassign = r.get<number | false>('reassign');
    let heir: number | null = null;
    if (reassign !== false && reassign !== 0) {
      if (reassign === target.id || !(await findSiteAccount(kit.db, reassign))) {
        throw new RestError('rest_user_invalid_reassign', 'Invalid user ID for reassignment.', 400);
      }
      heir = reassign;
    }
    const previous = present(target, 'edit');
    await deleteSiteAccount(kit.db, target.id, heir).catch((err: unknown) => toRest(err, false));
    return { deleted: true, previous };
  };

  const deleteArgs: Record<string, ArgSchema> = {
    force: {
      type: 'boolean',
      default: false,
      description: 'Required to be true, as users do not support trashing.',
    },
    reassign: {
      // WordPress's check_reassign also takes false (or '') for "delete the posts".
      type: ['integer', 'boolean'],
      description: "Reassign the deleted user's posts and links to this user ID.",
      required: true,
      sanitize: (value) => {
        if (value === true)
          throw new RestError('rest_invalid_param', 'Invalid user parameter(s).', 400);
        return value;
      },
    },
  };
  const idArg: ArgSchema = { description: 'Unique identifier for the user.', type: 'integer' };

  kit.rest.register(
    'wp/v2',
    '/users',
    {
      methods: CREATABLE,
      args: writeArgs(schema, true),
      permission: (r) => {
        if (!r.can('create_users')) {
          throw denied(
            r,
            'rest_cannot_create_user',
            'Sorry, you are not allowed to create new users.',
          );
        }
        return true;
      },
      callback: async (r) => {
        if (r.body.id !== undefined) {
          throw new RestError('rest_user_exists', 'Cannot create existing user.', 400);
        }
        const role = checkRoles(r, null) ?? 'subscriber';
        const id = await createSiteAccount(kit.db, {
          username: r.get<string>('username'),
          email: r.get<string>('email'),
          password: r.get<string>('password'),
          role,
          profile: profileChanges(r),
        }).catch((err: unknown) => toRest(err, true));
        return new RestResponse(present((await findSiteAccount(kit.db, id))!, 'edit'), 201, {
          Location: kit.urls.rest(`/wp/v2/users/${id}`),
        });
      },
    },
    { schema: () => schema },
  );
  for (const route of ['/users/(?P<id>[\\d]+)', '/users/me']) {
    const byId = route !== '/users/me';
    kit.rest.register(
      'wp/v2',
      route,
      [
        {
          methods: EDITABLE,
          args: { ...(byId ? { id: idArg } : {}), ...writeArgs(schema, false) },
          permission: updatePermission,
          callback: update,
        },
        {
          methods: DELETABLE,
          args: { ...(byId ? { id: idArg } : {}), ...deleteArgs },
          permission: deletePermission,
          callback: remove,
        },
      ],
      { schema: () => schema },
    );
  }
}
