import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { RegisteredRoute } from '../../src/http/security-headers.js';

/** The directives of a Content-Security-Policy header. */
export function cspDirectives(header: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of header.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), values);
  }
  return out;
}

/**
 * What every answer must carry (nosniff) and every HTML page besides: a policy whose scripts
 * come only from this origin or a nonce (no 'unsafe-inline', no inline handlers), no plugins,
 * and no framing unless the route is frameable (then neither frame-ancestors nor X-Frame-Options).
 * Returns whether the answer was an HTML page.
 */
export function expectSecurityHeaders(
  what: string,
  res: LightMyRequestResponse,
  route: RegisteredRoute,
): boolean {
  expect(res.headers['x-content-type-options'], `nosniff: ${what}`).toBe('nosniff');
  if (!/^text\/html/i.test(String(res.headers['content-type'] ?? ''))) return false;
  const header = res.headers['content-security-policy'];
  expect(header, `CSP: ${what}`).toBeTypeOf('string');
  const csp = cspDirectives(String(header));
  const scripts = csp.get('script-src') ?? csp.get('default-src');
  expect(scripts, `script-src: ${what}`).toBeDefined();
  expect(scripts, `script-src: ${what}`).not.toContain("'unsafe-inline'");
  expect(scripts, `script-src: ${what}`).not.toContain("'unsafe-eval'");
  expect(
    scripts!.filter((s) => s !== "'self'" && !/^'nonce-[A-Za-z0-9+/=]{16,}'$/.test(s)),
    `script-src: ${what}`,
  ).toEqual([]);
  expect(csp.get('object-src'), `object-src: ${what}`).toEqual(["'none'"]);
  expect(csp.get('base-uri'), `base-uri: ${what}`).toEqual(["'self'"]);
  if (route.frameable) {
    expect(csp.has('frame-ancestors'), `frameable: ${what}`).toBe(false);
    expect(res.headers['x-frame-options'], `frameable: ${what}`).toBeUndefined();
  } else {
    expect(csp.get('frame-ancestors'), `frame-ancestors: ${what}`).toEqual(["'none'"]);
    expect(res.headers['x-frame-options'], `X-Frame-Options: ${what}`).toBe('DENY');
  }
  return true;
}

/**
 * A path to call for a registered route: its parameters from `samples` (by name, else
 * `fallback`), its wildcard from `wildcards` (by route, else `fallback`).
 */
export function concretePath(
  url: string,
  samples: Record<string, string>,
  wildcards: Record<string, string>,
  fallback: string,
): string {
  return url
    .replace(/:([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?/g, (_m, name: string) =>
      encodeURIComponent(samples[name] ?? fallback),
    )
    .replace(/\*$/, wildcards[url] ?? fallback);
}
