import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNonPublicAddress } from '../../src/domain/oembed/address-guard.js';
import { OembedError } from '../../src/domain/oembed/oembed-error.js';
import { OembedProxy, type OembedProxyOptions } from '../../src/domain/oembed/oembed-proxy.js';
import { ProviderAllowList } from '../../src/domain/oembed/provider-allow-list.js';
import { answerJson, startLocalProvider, type LocalProvider } from './local-provider.js';

let provider: LocalProvider;
let offList: LocalProvider;
let silent: LocalProvider;
let chatty: LocalProvider;

beforeAll(async () => {
  provider = await startLocalProvider(
    answerJson({ version: '1.0', type: 'video', title: 'A train', html: '<iframe></iframe>' }),
  );
  offList = await startLocalProvider(answerJson({ version: '1.0', type: 'rich' }));
  // Never answers: the proxy must give up by itself.
  silent = await startLocalProvider(() => {});
  chatty = await startLocalProvider((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'rich', html: 'x'.repeat(10_000) }));
  });
});
afterAll(async () => {
  for (const p of [provider, offList, silent, chatty]) await p.close();
});

const OPTIONS: OembedProxyOptions = { timeoutMs: 300, maxBytes: 4096, cacheSeconds: 60 };

function proxyWith(options: Partial<OembedProxyOptions> = {}) {
  return new OembedProxy(
    new ProviderAllowList([
      { pattern: 'https://video.test/watch/*', endpoint: `${provider.url}/oembed` },
      { pattern: 'https://slow.test/*', endpoint: `${silent.url}/oembed` },
      { pattern: 'https://big.test/*', endpoint: `${chatty.url}/oembed` },
      // A name (not an address) whose resolver says loopback: the off-list server's port.
      {
        pattern: 'https://named.test/*',
        endpoint: `http://provider.internal.test:${new URL(offList.url).port}/oembed`,
      },
    ]),
    { ...OPTIONS, ...options },
  );
}

async function refusal(p: Promise<unknown>): Promise<OembedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OembedError);
  return err as OembedError;
}

describe('oEmbed proxy', () => {
  it('asks the listed provider (on loopback, listed by address) and caches its answer', async () => {
    const proxy = proxyWith();
    const before = provider.requests.length;
    const data = await proxy.fetch({ url: 'https://video.test/watch/42', maxwidth: 500 });
    expect(data).toMatchObject({
      type: 'video',
      title: 'A train',
      asked_url: 'https://video.test/watch/42',
      maxwidth: '500',
    });
    await proxy.fetch({ url: 'https://video.test/watch/42', maxwidth: 500 });
    expect(provider.requests.length - before).toBe(1);
    await proxy.fetch({ url: 'https://video.test/watch/43', maxwidth: 500 });
    expect(provider.requests.length - before).toBe(2);
  });

  it('refuses a URL off the list without any request, even one on this machine', async () => {
    const proxy = proxyWith();
    const before = offList.requests.length;
    for (const url of [
      `${offList.url}/oembed`,
      'https://video.test/other/1',
      'http://video.test/watch/1',
      'https://evil.test/?u=https://video.test/watch/1',
    ]) {
      const err = await refusal(proxy.fetch({ url }));
      expect([err.code, err.status]).toEqual(['oembed_invalid_url', 404]);
    }
    expect(offList.requests.length).toBe(before);
  });

  it('refuses a listed name that resolves to a private or loopback address', async () => {
    const before = offList.requests.length;
    const proxy = proxyWith({ lookupHost: async () => ({ address: '127.0.0.1', family: 4 }) });
    const err = await refusal(proxy.fetch({ url: 'https://named.test/x' }));
    expect([err.code, err.status]).toEqual(['oembed_address_refused', 403]);
    expect(offList.requests.length).toBe(before);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      'fe80::1',
      '0.0.0.0',
      '::ffff:127.0.0.1',
    ]) {
      expect(isNonPublicAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '2606:4700::1111'])
      expect(isNonPublicAddress(a), a).toBe(false);
  });

  it('refuses a listed name that resolves to an IPv6 form carrying a private IPv4 address', async () => {
    const before = offList.requests.length;
    for (const address of [
      '::7f00:1',
      '2002:7f00:1::',
      '::ffff:0:7f00:1',
      '64:ff9b::a9fe:a9fe',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
    ]) {
      const proxy = proxyWith({ lookupHost: async () => ({ address, family: 6 }) });
      const err = await refusal(proxy.fetch({ url: 'https://named.test/x' }));
      expect([err.code, err.status], address).toEqual(['oembed_address_refused', 403]);
    }
    expect(offList.requests.length).toBe(before);
  });

  it('gives up on a provider that does not answer (504) and on an answer over the size cap (502)', async () => {
    const proxy = proxyWith();
    const slow = await refusal(proxy.fetch({ url: 'https://slow.test/1' }));
    expect([slow.code, slow.status]).toEqual(['oembed_provider_timeout', 504]);
    const big = await refusal(proxy.fetch({ url: 'https://big.test/1' }));
    expect([big.code, big.status]).toEqual(['oembed_response_too_large', 502]);
  });
});
