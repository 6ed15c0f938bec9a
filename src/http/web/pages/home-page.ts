import { html } from '../../html/html.js';
import { searchForm, webPage } from '../layout.js';
import { sendPage } from '../send-page.js';
import type { WebRoutes } from '../web-routes.js';

/** GET /: the search box first, then what is new. */
export function homePage({ web, assets, view }: WebRoutes): void {
  web.get('/', async (request, reply) => {
    const v = view(request);
    const { t } = v;
    const body = html`<p>${t.homeIntro}</p>
      ${searchForm(v, { large: true })}`;
    return sendPage(request, reply, {
      body: webPage(v, assets, {
        title: t.homeTitle,
        body,
        section: 'search',
        headerSearch: false,
      }),
    });
  });
}
