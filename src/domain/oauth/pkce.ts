import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * PKCE (RFC 7636) with the S256 method only (RFC 9700 2.1.1: `plain` protects nothing against
 * an attacker who can read the authorization request). Verifiers and challenges are 43-128
 * characters of the unreserved alphabet (RFC 7636 4.1, 4.2).
 */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Whether a code_challenge (or code_verifier) has the form RFC 7636 4.1/4.2 allows. */
export function isPkceValue(value: string): boolean {
  return PKCE_VALUE.test(value);
}

/** BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 4.2). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** RFC 7636 4.6: whether the verifier's S256 transform equals the stored challenge. */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!isPkceValue(verifier)) return false;
  const expected = Buffer.from(challenge, 'ascii');
  const actual = Buffer.from(s256Challenge(verifier), 'ascii');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
