import { describe, expect, it } from 'vitest';
import { isNonPublicAddress } from '../../src/domain/oembed/address-guard.js';
import { postWebhook } from '../../src/domain/webhooks/webhook-post.js';
import { checkWebhookUrl } from '../../src/domain/webhooks/webhook-url.js';

/**
 * The attack: IPv6 forms that carry an IPv4 address (IPv4-compatible, 6to4, SIIT, NAT64, Teredo)
 * used to reach the loopback, the private network or the cloud's metadata service through a
 * guard that knew only the plain and the IPv4-mapped forms.
 */
const EMBEDDED_PRIVATE: [form: string, address: string][] = [
  ['IPv4-compatible loopback', '::7f00:1'],
  ['IPv4-compatible private', '::a00:1'],
  ['IPv4-mapped, hex', '::ffff:7f00:1'],
  ['6to4 loopback', '2002:7f00:1::'],
  ['6to4 metadata', '2002:a9fe:a9fe::1'],
  ['SIIT loopback', '::ffff:0:7f00:1'],
  ['SIIT private', '::ffff:0:c0a8:101'],
  ['NAT64 loopback', '64:ff9b::7f00:1'],
  ['NAT64 metadata', '64:ff9b::a9fe:a9fe'],
  ['local-use NAT64', '64:ff9b:1::a00:1'],
  ['Teredo (client 127.0.0.1)', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
];

describe('IPv6 forms carrying a private IPv4 address', () => {
  it.each(EMBEDDED_PRIVATE)('a webhook URL at the %s form [%s] is refused', (_form, address) => {
    for (const allowLoopback of [false, true])
      expect(() => checkWebhookUrl(`https://[${address}]/hook`, allowLoopback)).toThrow(
        expect.objectContaining({ code: 'webhook_address_refused', field: 'url' }),
      );
  });

  it.each(EMBEDDED_PRIVATE)(
    'a webhook host resolving to the %s form [%s] is refused at delivery, without connecting',
    async (_form, address) => {
      const refused = await postWebhook('https://hooks.example.com/in', {}, '{}', {
        allowLoopback: false,
        timeoutMs: 1_000,
        lookupHost: async () => ({ address, family: 6 }),
      }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'webhook_address_refused' });
    },
  );

  it('leaves the public forms public: 6to4 and NAT64 of a public address, a global address', () => {
    for (const a of ['2002:5db8:d822::1', '64:ff9b::5db8:d822', '2606:4700::1111', '93.184.216.34'])
      expect(isNonPublicAddress(a), a).toBe(false);
    expect(checkWebhookUrl('https://[2002:5db8:d822::1]/hook', false).hostname).toBe(
      '[2002:5db8:d822::1]',
    );
  });
});
