import http from 'node:http';
import https from 'node:https';
import { LRUCache } from 'lru-cache';
import { pinnedLookup, resolveAllowedTarget, type HostLookup } from './address-guard.js';
import { OembedError } from './oembed-error.js';
import type { ProviderAllowList } from './provider-allow-list.js';

export interface OembedProxyOptions {
  /** A provider answering later than this is given up (504). */
  timeoutMs: number;
  /** Largest answer read, in bytes (502 past it). */
  maxBytes: number;
  /** How long an answer is kept; 0 = not kept. */
  cacheSeconds: number;
  /** Answers kept at most. Default 500. */
  cacheEntries?: number;
  /** Name resolution (default: the system's, dns.lookup); tests stand in a resolver. */
  lookupHost?: HostLookup;
}

export interface OembedProxyRequest {
  url: string;
  maxwidth?: number;
  maxheight?: number;
}

type OembedData = Record<string, unknown>;

/** No embed for the URL (none listed, the provider failed or refused): WordPress's 404. */
function notFound(reason: string, options?: { cause?: unknown }): OembedError {
  return new OembedError('oembed_invalid_url', 404, `Not Found: ${reason}`, options);
}

/**
 * GET /oembed/1.0/proxy's domain: asks the listed provider of a URL for its oEmbed data, and no
 * one else. The endpoint's host is resolved once and the connection pinned to the checked
 * address; redirects are not followed; the answer is bounded in time and size, must be a JSON
 * object with a `type`, and is cached.
 */
export class OembedProxy {
  private readonly cache: LRUCache<string, OembedData> | undefined;

  constructor(
    private readonly allowList: ProviderAllowList,
    private readonly options: OembedProxyOptions,
  ) {
    this.cache =
      options.cacheSeconds > 0
        ? new LRUCache({ max: options.cacheEntries ?? 500, ttl: options.cacheSeconds * 1000 })
        : undefined;
  }

  /** The provider endpoint URL asked for a request (what the cache is keyed by). */
  requestUrl(request: OembedProxyRequest): URL {
    const provider = this.allowList.providerFor(request.url);
    if (!provider) throw notFound('no allowed provider for this URL');
    const target = new URL(provider.endpoint);
    target.searchParams.set('url', request.url);
    target.searchParams.set('format', 'json');
    if (request.maxwidth !== undefined)
      target.searchParams.set('maxwidth', String(request.maxwidth));
    if (request.maxheight !== undefined)
      target.searchParams.set('maxheight', String(request.maxheight));
    return target;
  }

  async fetch(request: OembedProxyRequest): Promise<OembedData> {
    const target = this.requestUrl(request);
    const key = target.toString();
    const hit = this.cache?.get(key);
    if (hit) return structuredClone(hit);
    const data = await this.ask(target);
    this.cache?.set(key, data);
    return structuredClone(data);
  }

  private async ask(target: URL): Promise<OembedData> {
    const pinned = pinnedLookup(
      await resolveAllowedTarget(target.hostname, this.options.lookupHost),
    );
    const client = target.protocol === 'https:' ? https : http;
    const body = await new Promise<Buffer>((resolve, reject) => {
      let settled = false;
      const finish = (err: unknown, value?: Buffer) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (err) {
          req.destroy();
          reject(
            err instanceof OembedError ? err : notFound((err as Error).message, { cause: err }),
          );
        } else resolve(value!);
      };
      const timedOut = () =>
        finish(
          new OembedError(
            'oembed_provider_timeout',
            504,
            `the provider did not answer within ${this.options.timeoutMs} ms`,
          ),
        );
      const req = client.request(
        target,
        {
          method: 'GET',
          lookup: pinned,
          headers: { accept: 'application/json', 'user-agent': 'emutrack-docs oEmbed proxy' },
          timeout: this.options.timeoutMs,
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            finish(notFound(`the provider answered ${res.statusCode}`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > this.options.maxBytes) {
              finish(
                new OembedError(
                  'oembed_response_too_large',
                  502,
                  `the provider's answer is larger than ${this.options.maxBytes} bytes`,
                ),
              );
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => finish(undefined, Buffer.concat(chunks)));
          res.on('error', (err) => finish(err));
        },
      );
      const deadline = setTimeout(timedOut, this.options.timeoutMs);
      req.on('timeout', timedOut);
      req.on('error', (err) => finish(err));
      req.end();
    });
    let data: unknown;
    try {
      data = JSON.parse(body.toString('utf8'));
    } catch {
      throw new OembedError(
        'oembed_invalid_response',
        502,
        'the provider answered something other than JSON',
      );
    }
    if (
      typeof data !== 'object' ||
      data === null ||
      Array.isArray(data) ||
      typeof (data as OembedData).type !== 'string'
    ) {
      throw new OembedError(
        'oembed_invalid_response',
        502,
        'the provider answered no oEmbed object (no type)',
      );
    }
    return data as OembedData;
  }
}
