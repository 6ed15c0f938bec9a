import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../html/html.js';
import type { WebAssets } from './assets/web-assets.js';
import { webPage, type Section } from './layout.js';
import { answerSwitch, webViewOf, type WebView } from './web-request.js';

/**
 * What the pages outside the web scope (sign-in, account, OAuth consent, the operators' pages)
 * are drawn with: the web app's assets and the documentation site's address as a request sees
 * it. Set on the app by registerWebApp, before those pages are registered.
 */
export interface PageFrame {
  assets: WebAssets;
  docsSite(request: FastifyRequest): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    pageFrame: PageFrame;
  }
}

export interface PersonalPageOptions {
  title: string;
  body: Html;
  heading?: Html;
  section?: Section;
  signedIn?: { username: string; csrfToken: string };
  /** Page scripts (see WebPageOptions). */
  scripts?: readonly string[];
  /**
   * Where the footer's language and colour switches come back to: a form's answer is a page of
   * the form's own address (a GET there), not of the address it posted to. Default this one.
   */
  here?: string;
}

/** The reader's view of a request (language, scheme), coming back to `here` if given. */
export function personalView(request: FastifyRequest, here?: string): WebView {
  const view = webViewOf(request);
  return here === undefined ? view : { ...view, here };
}

/**
 * A page for one reader in the web app's layout: the same header, footer, language and scheme
 * as every page, without the offline notice and the search box, with the documentation links.
 */
export function personalPage(
  request: FastifyRequest,
  view: WebView,
  options: PersonalPageOptions,
): string {
  const frame = request.server.pageFrame;
  return webPage(view, frame.assets, {
    ...options,
    personal: true,
    docsSite: frame.docsSite(request),
  });
}

/**
 * Sends a personal page. `no-store`: it holds the signed-in reader's data (or a form with their
 * CSRF token), which no cache, shared or the browser's own, may keep.
 */
export function sendPersonalPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: WebView,
  options: PersonalPageOptions,
): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(personalPage(request, view, options));
}

/**
 * The footer's switches on these pages' scopes (a preHandler, as in the web scope): a GET with
 * `?lang=` or `?theme=` keeps the choice and comes back without it.
 */
export async function answerSwitches(request: FastifyRequest, reply: FastifyReply) {
  if (request.method === 'GET' && answerSwitch(request, reply)) return reply;
}
