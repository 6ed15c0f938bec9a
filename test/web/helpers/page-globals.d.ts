/*
 * The browser's globals as the callbacks these tests hand to page.evaluate() see them. Loose on
 * purpose: the DOM library's own types clash with Node's (Blob, fetch) in the code under test,
 * and what runs in the page is checked by running it there.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const window: any;
declare const navigator: any;
declare const location: any;
