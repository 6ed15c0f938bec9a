import type { FastifyRequest } from 'fastify';
import type { SignedInBrowser } from '../session/web-session.js';
import type { Messages } from '../web/i18n/messages-en.js';

/** What a panel of the account page's Development tab is drawn with. */
export interface AccountPanelContext {
  request: FastifyRequest;
  signedIn: SignedInBrowser;
  /** This browser's CSRF token: forms of the panel carry it as the hidden field `_csrf`. */
  csrfToken: string;
  /** The reader's language's words (the web app's catalogue). */
  t: Messages;
}

/**
 * A section of the Development tab of /account added by another part of the product (the OAuth
 * clients panel). `render` returns an HTML fragment; it must escape what it shows (the html tag).
 */
export interface AccountPanel {
  /** Unique; the section's element id. */
  id: string;
  /** The section's heading (in the reader's words: a function of the catalogue). */
  title: string | ((t: Messages) => string);
  render(context: AccountPanelContext): Promise<string> | string;
}

/** The panels of the Development tab, in the order they were added (after the API keys). */
export class AccountPanels {
  private readonly panels: AccountPanel[] = [];

  add(panel: AccountPanel): void {
    if (this.panels.some((p) => p.id === panel.id)) {
      throw new Error(`an account panel with id ${panel.id} is already added`);
    }
    this.panels.push(panel);
  }

  list(): readonly AccountPanel[] {
    return this.panels;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The Development tab's extra panels: `app.accountPanels.add(panel)` (see account-panels.ts). */
    accountPanels: AccountPanels;
  }
}
