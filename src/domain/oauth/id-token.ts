import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningKey } from './signing-keys.js';

/** What an id_token says (OpenID Connect Core 2, 3.1.3.6). */
export interface IdTokenClaims {
  /** The issuer (PUBLIC_URL), identical to discovery's `issuer`. */
  issuer: string;
  /** The subject: the user id (a public subject identifier, the same for every client). */
  subject: string;
  clientId: string;
  issuedAt: Date;
  expiresAt: Date;
  /** When the user last signed in. */
  authTime: Date;
  /** The access token issued with it (for at_hash). */
  accessToken: string;
  /** The authorization request's nonce; absent = no nonce claim. */
  nonce?: string;
  /** Present only when api.auth.me.read was granted. */
  preferredUsername?: string;
}

/**
 * at_hash (OpenID Connect Core 3.1.3.6): the left half of the SHA-256 of the access token's
 * ASCII octets (SHA-256 because the id_token is RS256), base64url without padding.
 */
export function accessTokenHash(accessToken: string): string {
  const digest = createHash('sha256').update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Signs an id_token (RS256, `kid` and `typ: JWT` in the header). */
export async function signIdToken(key: SigningKey, claims: IdTokenClaims): Promise<string> {
  const payload: Record<string, unknown> = {
    azp: claims.clientId,
    auth_time: seconds(claims.authTime),
    at_hash: accessTokenHash(claims.accessToken),
  };
  if (claims.nonce !== undefined) payload.nonce = claims.nonce;
  if (claims.preferredUsername !== undefined) payload.preferred_username = claims.preferredUsername;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(claims.issuer)
    .setSubject(claims.subject)
    .setAudience(claims.clientId)
    .setIssuedAt(seconds(claims.issuedAt))
    .setExpirationTime(seconds(claims.expiresAt))
    .sign(key.privateKey);
}
