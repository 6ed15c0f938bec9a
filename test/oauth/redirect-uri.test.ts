import { describe, expect, it } from 'vitest';
import { redirectUriProblem } from '../../src/domain/oauth/redirect-uri.js';

describe('redirect URIs at registration (RFC 6749 3.1.2, RFC 9700 2.1, RFC 8252 7.3)', () => {
  it.each([
    'https://app.example/callback',
    'https://app.example:8443/cb?x=1',
    'http://127.0.0.1:8123/callback',
    'http://127.8.9.1/cb',
    'http://localhost:3000/cb',
    'http://[::1]:9000/cb',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  it.each([
    ['http://app.example/callback', /https/],
    ['https://app.example/cb#frag', /fragment/],
    ['/callback', /absolute/],
    ['javascript:alert(1)', /https/],
    ['com.example.app:/cb', /https/],
    ['https://user:pw@app.example/cb', /user information/],
    ['https://app.example/a b', /white space/],
    ['', /empty/],
    [`https://app.example/${'x'.repeat(2001)}`, /longer/],
  ])('refuses %s', (uri, why) => {
    expect(redirectUriProblem(uri)).toMatch(why);
  });
});
