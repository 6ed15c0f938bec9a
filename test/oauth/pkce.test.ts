import { describe, expect, it } from 'vitest';
import { isPkceValue, s256Challenge, verifyS256 } from '../../src/domain/oauth/pkce.js';

describe('PKCE S256 (RFC 7636)', () => {
  it('computes the challenge of RFC 7636 Appendix B', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    expect(s256Challenge(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(verifyS256(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });

  it('refuses a verifier that does not hash to the challenge, or is not of the RFC 7636 4.1 form', () => {
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    expect(verifyS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXK', challenge)).toBe(false);
    // plain: the challenge itself as verifier
    expect(verifyS256(challenge, challenge)).toBe(false);
    expect(verifyS256('short', s256Challenge('short'))).toBe(false);
  });

  it('accepts 43-128 characters of the unreserved alphabet only (RFC 7636 4.1, 4.2)', () => {
    expect(isPkceValue('a'.repeat(42))).toBe(false);
    expect(isPkceValue('a'.repeat(43))).toBe(true);
    expect(isPkceValue('a'.repeat(128))).toBe(true);
    expect(isPkceValue('a'.repeat(129))).toBe(false);
    expect(isPkceValue(`${'a'.repeat(42)}+`)).toBe(false);
    expect(isPkceValue(`${'a'.repeat(40)}-._~`)).toBe(true);
  });
});
