import { z } from 'zod';
import type { Credential } from '../../domain/accounts/credentials.js';

/**
 * The wire shapes of the account operations (compatibility.md, "Accounts, keys and OAuth paths")
 * and their writers. Times are Unix seconds.
 */
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

const issuerSchema = z.enum(['unspecified', 'webapp', 'api', 'oauth']);

/** Username and password of registration and sign-in. */
export const credentialsBodySchema = z.strictObject({
  username: z.string().max(64).describe('3-32 characters of letters, digits, "_", "." and "-".'),
  password: z.string().max(1024).describe('At least 8 characters.'),
});

export const webSessionSchema = z
  .object({
    userId: z.string(),
    username: z.string(),
    revokeId: z.string(),
    issuer: issuerSchema,
    maskedApiKey: z.string(),
    scopes: z.array(z.string()),
    activeFrom: z.int(),
    expiresAt: z.int(),
    dailyTokenLimit: z.uint32(),
  })
  .meta({ id: 'WebSession' });

export function webSessionOf(username: string, credential: Credential) {
  return { userId: credential.userId, username, ...apiKeySummaryOf(credential) };
}

export const authQuotaSummarySchema = z
  .object({
    tokenLimit: z.uint32().describe("The bucket's capacity."),
    remain: z
      .uint32()
      .describe("Tokens left now (the smaller of the bucket's and the key's day's)."),
    refillAmount: z.uint32(),
    refillIntervalSeconds: z.uint32(),
    nextRefillAt: z.int().optional().describe('Unix seconds; absent while the bucket is full.'),
  })
  .meta({ id: 'AuthQuotaSummary' });

export const apiKeySummarySchema = z
  .object({
    revokeId: z.string(),
    issuer: issuerSchema,
    maskedApiKey: z.string(),
    activeFrom: z.int(),
    expiresAt: z.int(),
    dailyTokenLimit: z.uint32(),
    scopes: z.array(z.string()),
  })
  .meta({ id: 'AuthApiKey' });

export const sessionSchema = z
  .object({
    user: z.object({ userId: z.string() }).optional(),
    apiKey: apiKeySummarySchema.optional(),
    quota: authQuotaSummarySchema.optional(),
  })
  .meta({ id: 'GetAuthMeData' });

export function apiKeySummaryOf(credential: Credential) {
  return {
    revokeId: credential.revokeId,
    issuer: credential.issuer,
    maskedApiKey: credential.maskedApiKey,
    activeFrom: seconds(credential.activeFrom),
    expiresAt: seconds(credential.expiresAt),
    dailyTokenLimit: credential.dailyTokenLimit,
    scopes: credential.scopes,
  };
}

export const apiKeyItemSchema = z
  .object({
    name: z.string(),
    revokeId: z.string(),
    maskedKeyId: z.string().describe('The key with its middle hidden (the same as maskedApiKey).'),
    issuer: issuerSchema,
    oauthClientId: z.string().optional().describe('The OAuth client (oauth credentials).'),
    activeFrom: z.int(),
    revokedAt: z.int().optional().describe('Once revoked.'),
    expiresAt: z.int(),
    dailyTokenLimit: z.uint32(),
    scopes: z.array(z.string()),
    isCurrent: z.boolean().describe('Whether this is the credential making the request.'),
  })
  .meta({ id: 'ApiKeyItem' });

export function apiKeyItemOf(credential: Credential, currentRevokeId: string | undefined) {
  return {
    name: credential.name,
    revokeId: credential.revokeId,
    maskedKeyId: credential.maskedApiKey,
    issuer: credential.issuer,
    ...(credential.oauthClientId !== null ? { oauthClientId: credential.oauthClientId } : {}),
    activeFrom: seconds(credential.activeFrom),
    ...(credential.revokedAt !== null ? { revokedAt: seconds(credential.revokedAt) } : {}),
    expiresAt: seconds(credential.expiresAt),
    dailyTokenLimit: credential.dailyTokenLimit,
    scopes: credential.scopes,
    isCurrent: credential.revokeId === currentRevokeId,
  };
}

export const apiKeyListSchema = z
  .object({
    items: z.array(apiKeyItemSchema).describe('Newest first; revoked and expired ones included.'),
    quota: authQuotaSummarySchema,
    creatableScopes: z.array(z.string()).describe('Scopes a new key may carry (what you hold).'),
    defaultScopes: z.array(z.string()).describe('What a new key carries when scopes is absent.'),
    maxLifetimeSeconds: z.uint32(),
  })
  .meta({ id: 'GetApiKeysData' });

export const createApiKeyBodySchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'name: must not be empty')
    .max(100, 'name: at most 100 characters'),
  scopes: z.array(z.string().max(100)).max(50).optional(),
  activeFrom: z.int().min(0).optional().describe('Unix seconds; default now.'),
  expiresAt: z.int().min(0).optional().describe('Unix seconds; default 30 days after activeFrom.'),
});

export const createdApiKeySchema = z
  .object({
    apiKey: z.string().describe('The key in clear: shown this once, never again.'),
    name: z.string(),
    maskedApiKey: z.string(),
    revokeId: z.string(),
    issuer: issuerSchema,
    activeFrom: z.int(),
    expiresAt: z.int(),
    dailyTokenLimit: z.uint32(),
    scopes: z.array(z.string()),
  })
  .meta({ id: 'CreateApiKeyData' });
