import type { RestServer } from './rest-server.js';

/** The site facts the index shows (WordPress's get_index). */
export interface SiteFacts {
  name: string;
  description: string;
  gmtOffset: number;
  timezoneString: string;
}

/**
 * GET / (the index: site facts, namespaces, authentication, every route) and GET /{namespace}
 * for every namespace registered so far; call after every module registered its routes.
 */
export function registerIndexRoutes(server: RestServer, facts: () => SiteFacts): void {
  const { registry, urls } = server;
  for (const namespace of registry.namespaces()) {
    registry.register(namespace, '', {
      methods: 'GET',
      args: {
        namespace: { default: namespace },
        context: { default: 'view' },
      },
      callback: (request) => ({
        namespace,
        routes: server.routesData(namespace, request.get('context') === 'help' ? 'help' : 'view'),
        _links: { up: [{ href: urls.rest('/') }] },
      }),
    });
  }
  registry.register('', '/', {
    methods: 'GET',
    args: { context: { default: 'view' } },
    callback: (request) => {
      const f = facts();
      return {
        name: f.name,
        description: f.description,
        url: urls.site,
        home: urls.site,
        gmt_offset: f.gmtOffset,
        timezone_string: f.timezoneString,
        page_for_posts: 0,
        page_on_front: 0,
        show_on_front: 'posts',
        namespaces: [...registry.namespaces()],
        authentication: {
          'application-passwords': {
            endpoints: { authorization: urls.page('/wp-admin/authorize-application.php') },
          },
        },
        routes: server.routesData(undefined, request.get('context') === 'help' ? 'help' : 'view'),
        site_logo: 0,
        site_icon: 0,
        site_icon_url: '',
        _links: { help: [{ href: 'https://developer.wordpress.org/rest-api/' }] },
      };
    },
  });
}
