import { z } from 'zod';
import type { OAuthClient } from '../../domain/oauth/client-records.js';
import { isEmutrackError } from '../../shared/errors/emutrack-error.js';
import type { Authorization } from '../../domain/oauth/authorizations.js';
import { ApiError } from '../api/api-error.js';

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

export const clientScopeSchema = z
  .object({
    scope: z.string(),
    status: z
      .enum(['pending', 'approved', 'rejected'])
      .describe(
        'pending: usable by the owner only, for testing; approved: by every user; rejected: by nobody.',
      ),
    requestedAt: z.int(),
    reviewedAt: z.int().optional(),
    reviewedBy: z.string().optional().describe('Username of the reviewing administrator.'),
  })
  .meta({ id: 'OAuthClientScope' });

export const oauthClientSchema = z
  .object({
    clientId: z.string().describe('The client_id of authorization and token requests.'),
    name: z.string(),
    description: z.string().optional(),
    homepageUrl: z.string().optional(),
    redirectUris: z.array(z.string()),
    requestedScopes: z.array(z.string()),
    scopes: z.array(clientScopeSchema).describe('Each requested scope with its review.'),
    status: z.enum(['active', 'disabled']),
    ownerUsername: z.string(),
    createdAt: z.int(),
    updatedAt: z.int(),
  })
  .meta({ id: 'OAuthClient' });

export type OAuthClientJson = z.output<typeof oauthClientSchema>;

/** The client as the v2 API shows it: times in Unix seconds, absent optional fields left out. */
export function clientJson(client: OAuthClient): OAuthClientJson {
  return {
    clientId: client.clientId,
    name: client.name,
    ...(client.description !== null ? { description: client.description } : {}),
    ...(client.homepageUrl !== null ? { homepageUrl: client.homepageUrl } : {}),
    redirectUris: client.redirectUris,
    requestedScopes: client.scopes.map((s) => s.scope),
    scopes: client.scopes.map((s) => ({
      scope: s.scope,
      status: s.status,
      requestedAt: seconds(s.requestedAt),
      ...(s.reviewedAt !== null ? { reviewedAt: seconds(s.reviewedAt) } : {}),
      ...(s.reviewedByUsername !== null ? { reviewedBy: s.reviewedByUsername } : {}),
    })),
    status: client.status,
    ownerUsername: client.ownerUsername,
    createdAt: seconds(client.createdAt),
    updatedAt: seconds(client.updatedAt),
  };
}

export const authorizationSchema = z
  .object({
    clientId: z.string(),
    name: z.string(),
    homepageUrl: z.string().optional(),
    ownerUsername: z.string(),
    scopes: z.array(z.string()).describe('What the app holds for you (live tokens and consent).'),
    authorizedAt: z.int(),
    lastUsedAt: z.int().optional(),
    activeTokens: z.uint32(),
  })
  .meta({ id: 'OAuthAuthorization' });

export function authorizationJson(a: Authorization): z.output<typeof authorizationSchema> {
  return {
    clientId: a.clientId,
    name: a.name,
    ...(a.homepageUrl !== null ? { homepageUrl: a.homepageUrl } : {}),
    ownerUsername: a.ownerUsername,
    scopes: a.scopes,
    authorizedAt: seconds(a.authorizedAt),
    ...(a.lastUsedAt !== null ? { lastUsedAt: seconds(a.lastUsedAt) } : {}),
    activeTokens: a.activeTokens,
  };
}

/** The client inputs of the spec; the domain checks them further (redirect URIs, scopes). */
export const clientInputSchema = z.object({
  name: z.string().describe('Shown on the consent page; 1-100 characters.'),
  redirectUris: z
    .array(z.string())
    .describe(
      '1-10 absolute URIs, compared string for string: https, or http on a loopback host (localhost, 127.0.0.1, [::1]); no fragment.',
    ),
  requestedScopes: z
    .array(z.string())
    .describe(
      'Scopes of the catalogue; each waits for an administrator (pending) unless you are one.',
    ),
  description: z.string().nullable().optional(),
  homepageUrl: z
    .string()
    .nullable()
    .optional()
    .describe('An http(s) URL shown on the consent page.'),
});

/** The domain's refusals as v2 errors: bad input 400 invalid_param, unknown client 404. */
export function asApiError(err: unknown): never {
  if (isEmutrackError(err, 'oauth_invalid_input')) throw new ApiError('invalid_param', err.message);
  if (isEmutrackError(err, 'oauth_client_not_found')) throw new ApiError('not_found', err.message);
  throw err;
}

export const clientIdParams = z.object({ clientId: z.string().min(1).max(100) });
