import { escapeHtml } from '../html/escape.js';

/**
 * The frame of every account page: plain HTML and CSS, usable without JavaScript (forms post,
 * tabs are links). The one script, the copy button of a new key, only adds a convenience.
 */
export interface PageOptions {
  title: string;
  /** The page's body, already HTML. */
  body: string;
  /** Shown in the header when someone is signed in. */
  username?: string;
  /** This browser's CSRF token, for the sign-out form in the header. */
  csrfToken?: string;
  /** The response's CSP nonce (request.cspNonce): the page's one script runs with it. */
  scriptNonce?: string;
}

/**
 * The copy button of a new key (and selecting the key on focus). A nonce'd script, not
 * onclick/onfocus attributes: the pages' CSP refuses every inline handler.
 */
const NEW_KEY_SCRIPT = `(()=>{const k=document.getElementById('new-key'),b=document.getElementById('copy-new-key');if(!k||!b)return;k.addEventListener('focus',()=>k.select());b.addEventListener('click',()=>{navigator.clipboard&&navigator.clipboard.writeText(k.value).then(()=>{b.textContent='Copied'})})})();`;

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:#f4f6f9}
header{background:#1d3557;color:#fff;padding:.7rem 1.5rem;display:flex;align-items:center;gap:1rem}
header a{color:#fff;text-decoration:none;font-weight:600}
header .who{margin-left:auto;display:flex;gap:.8rem;align-items:center}
header form{margin:0}
header button{background:transparent;border:1px solid #fff8;color:#fff;padding:.2rem .7rem;border-radius:4px;cursor:pointer}
main{max-width:880px;margin:2rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #d8dde6;border-radius:8px;padding:1.5rem;margin-bottom:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:0 0 .8rem}
label{display:block;font-weight:600;margin:.8rem 0 .25rem}
input[type=text],input[type=password],select{width:100%;max-width:26rem;padding:.5rem;border:1px solid #b8c0cc;border-radius:4px;font:inherit}
button.primary{margin-top:1rem;background:#1d3557;color:#fff;border:0;padding:.55rem 1.2rem;border-radius:4px;font:inherit;cursor:pointer}
button.danger{background:#fff;color:#b3261e;border:1px solid #b3261e;padding:.3rem .8rem;border-radius:4px;cursor:pointer}
.error{background:#fdecea;border:1px solid #f5c2bd;color:#8c1d18;padding:.6rem .9rem;border-radius:4px;margin-bottom:1rem}
.notice{background:#e7f4ea;border:1px solid #b7dfc0;color:#1e5c2e;padding:.6rem .9rem;border-radius:4px;margin-bottom:1rem}
.tabs{display:flex;gap:.3rem;border-bottom:2px solid #d8dde6;margin-bottom:1.5rem}
.tabs a{padding:.5rem 1rem;text-decoration:none;color:#1d3557;border-radius:6px 6px 0 0}
.tabs a[aria-current=page]{background:#1d3557;color:#fff}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th,td{text-align:left;padding:.45rem .4rem;border-bottom:1px solid #e3e7ee;vertical-align:top}
code{font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;background:#eef1f5;padding:.1rem .3rem;border-radius:3px}
.scopes{display:grid;grid-template-columns:1fr;gap:.2rem;margin:.3rem 0}
.scopes label{font-weight:400;margin:0}
.muted{color:#5c6573}
.newkey{display:flex;gap:.5rem;align-items:center;margin:.5rem 0}
.newkey input{flex:1;font:13px ui-monospace,Menlo,Consolas,monospace;max-width:none}
.revoked td{color:#8a919c;text-decoration:line-through}
`;

export function renderPage(options: PageOptions): string {
  const who =
    options.username !== undefined
      ? `<div class="who"><span>${escapeHtml(options.username)}</span>` +
        `<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${escapeHtml(options.csrfToken ?? '')}">` +
        `<button type="submit">Sign out</button></form></div>`
      : `<div class="who"><a href="/login">Sign in</a><a href="/register">Register</a></div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · emutrack</title>
<style>${STYLE}</style>
</head>
<body>
<header><a href="/account">emutrack</a>${who}</header>
<main>
${options.body}
</main>
${
  options.scriptNonce && options.body.includes('id="copy-new-key"')
    ? `<script nonce="${escapeHtml(options.scriptNonce)}">${NEW_KEY_SCRIPT}</script>
`
    : ''
}</body>
</html>`;
}
