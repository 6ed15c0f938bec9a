import type { Config } from '../../../src/shared/config/config.js';
import { contentModule } from '../../../src/http/site/content/content-module.js';
import {
  createMediaModule,
  type MediaModuleOptions,
} from '../../../src/http/site/media/media-module.js';
import type { SiteModule } from '../../../src/http/site/site-kit.js';
import { useSite, type SiteAccountFixture, type SiteFixture } from '../site-fixture.js';

export type SiteAccount = SiteAccountFixture;

export interface MediaSiteOptions {
  /** Serve on a loopback port (for HTTP clients and the browser); default inject only. */
  listen?: boolean;
  env?: Record<string, string>;
  media?: Omit<MediaModuleOptions, 'storage'>;
  /** Modules after content and media (templates, oEmbed). */
  extraModules?: (config: Config) => SiteModule[];
}

/**
 * A site with the content and media modules (and `extraModules`) on its own test database and
 * its own uploads directory (removed afterwards): useSite with those modules.
 */
export function useMediaSite(options: MediaSiteOptions = {}): SiteFixture {
  return useSite({
    listen: options.listen,
    env: options.env,
    uploads: true,
    modules: (config) => [
      contentModule,
      createMediaModule(options.media),
      ...(options.extraModules?.(config) ?? []),
    ],
  });
}

/** A multipart/form-data body as fetch would send it: the bytes and the Content-Type with its boundary. */
export async function multipartBody(
  fields: Record<string, string>,
  file: { name: string; type: string; bytes: Buffer },
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}
