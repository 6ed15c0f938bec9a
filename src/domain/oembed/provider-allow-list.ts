/** One allowed provider: content URLs matching `pattern` are asked of `endpoint`. */
export interface OembedProvider {
  /** A URL with `*` wildcards, e.g. `https://video.example/watch/*`. */
  pattern: string;
  /** The provider's oEmbed endpoint, e.g. `https://video.example/oembed`. */
  endpoint: string;
}

interface CompiledProvider extends OembedProvider {
  regex: RegExp;
}

/**
 * The oEmbed proxy's allow-list (OEMBED_PROVIDERS): the only providers the site ever asks. A
 * content URL either matches a listed pattern (the first wins) or is refused: no discovery
 * request goes to an address not on the list.
 */
export class ProviderAllowList {
  private readonly compiled: CompiledProvider[];

  constructor(providers: readonly OembedProvider[]) {
    this.compiled = providers.map((p) => ({
      ...p,
      regex: new RegExp(
        `^${p.pattern
          .split('*')
          .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
          .join('.*')}$`,
        'i',
      ),
    }));
  }

  /** The provider for a content URL, or undefined when none is listed for it. */
  providerFor(url: string): OembedProvider | undefined {
    const found = this.compiled.find((p) => p.regex.test(url));
    return found ? { pattern: found.pattern, endpoint: found.endpoint } : undefined;
  }
}
