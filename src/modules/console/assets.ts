// The console's only assets, served by the app itself (the service may run without internet):
// one stylesheet, a few lines of script (copy buttons; every page works without it) and the icon.
import type { FastifyInstance } from 'fastify';

const CSS = `
:root{--ink:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#f5f7fa;--card:#fff;--accent:#0b5fff;
--accent-ink:#fff;--danger:#b42318;--ok:#067647;--warn-bg:#fff6e5;--focus:#ffb020;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);
line-height:1.5;-webkit-text-size-adjust:100%}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);font-size:16px}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--card);padding:.5rem 1rem;z-index:2}
.skip:focus{left:.5rem}
.top{background:var(--ink);color:#fff}
.bar{max-width:1100px;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center}
.brand{color:#fff;font-weight:700;text-decoration:none;font-size:1.1rem}
.brand span{font-weight:400;opacity:.75}
.top nav{display:flex;gap:1rem;flex:1}
.top nav a{color:#fff;text-decoration:none;padding:.25rem 0;border-bottom:2px solid transparent}
.top nav a[aria-current=page]{border-bottom-color:#fff}
.who{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}
.who .restaurant{font-weight:600;overflow-wrap:anywhere}
.who .user{color:#dfe6f5;overflow-wrap:anywhere}
.who a,.who .link{color:#dfe6f5}
/* Stored values (URLs, emails, client ids, names) may hold no space: they wrap, never widen the page. */
main{max-width:1100px;margin:0 auto;padding:1.5rem 1rem 3rem;overflow-wrap:anywhere}
main:focus{outline:none}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .75rem}
.head{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;margin-bottom:1rem}
.head h1{margin:0}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1.25rem 1.5rem}
.card+.card{margin-top:1rem}
.narrow{max-width:34rem;margin:2rem auto}
.wide{max-width:46rem}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.muted,.hint{color:var(--muted)}
.hint{font-size:.9rem;margin:.25rem 0 0}
table{width:100%;border-collapse:collapse;background:var(--card);border:1px solid var(--line);border-radius:10px;overflow:hidden}
th,td{text-align:left;padding:.65rem .75rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:normal}
td:first-child>div{overflow-wrap:anywhere;min-width:7rem}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);background:#fafbfc}
tr:last-child td{border-bottom:0}
.nw,.tag{white-space:nowrap}
.tag.name{white-space:normal;border-radius:8px}
th:last-child,td:last-child{white-space:nowrap}
/* A table without actions (webhook deliveries): its last column wraps like the others. */
.plain th:last-child,.plain td:last-child{white-space:normal}
/* Positioned, so that the screen-reader text of its cells scrolls with the table, not the page. */
.table-wrap{overflow-x:auto;position:relative}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.tag{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:0 .5rem;margin:0 .25rem .25rem 0;font-size:.8rem;background:#fafbfc}
.status-active,.status-enabled,.status-succeeded{color:var(--ok);font-weight:600}
.status-revoked,.status-expired,.status-disabled,.status-failed{color:var(--danger);font-weight:600}
label{display:block;font-weight:600;margin-bottom:.25rem}
input[type=text],input[type=email],input[type=password]{width:100%;font:inherit;padding:.55rem .65rem;border:1px solid #b8c0cc;border-radius:8px;background:#fff}
input[aria-invalid=true]{border-color:var(--danger)}
.field{margin-bottom:1rem}
fieldset{border:1px solid var(--line);border-radius:8px;margin:0 0 1rem;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.35rem 0}
.choice input{margin-top:.3rem;width:1.05rem;height:1.05rem}
.error{color:var(--danger);font-size:.9rem;margin:.25rem 0 0}
.alert{border:1px solid var(--danger);background:#fef3f2;color:var(--danger);border-radius:8px;padding:.75rem 1rem;margin-bottom:1rem}
.notice{border:1px solid #f2c94c;background:var(--warn-bg);border-radius:8px;padding:.75rem 1rem;margin-bottom:1rem}
.success{border:1px solid #75e0a7;background:#ecfdf3;border-radius:8px;padding:.75rem 1rem;margin-bottom:1rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin-top:1.25rem}
button,.button{font:inherit;font-weight:600;border-radius:8px;padding:.55rem 1rem;border:1px solid var(--accent);background:var(--accent);color:var(--accent-ink);cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:var(--ink);border-color:#b8c0cc}
button.danger{background:var(--danger);border-color:var(--danger)}
button.link{background:none;border:0;padding:0;font-weight:400;text-decoration:underline;cursor:pointer}
form.inline{display:inline}
.secret{display:flex;gap:.5rem;flex-wrap:wrap}
.secret input{flex:1;min-width:12rem;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.scopes{margin:0;padding-left:1.2rem}
.scopes li{margin:.35rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0 0 1rem}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0}
@media (max-width:700px){
.bar{gap:.5rem 1rem}
.top nav{order:3;flex-basis:100%}
.card{padding:1rem}
dl.facts{grid-template-columns:1fr}
}
/* Below 960 px (phones, tablets) the keys table no longer fits: each row becomes a card. */
@media (max-width:960px){
table,thead,tbody,tr,th,td{display:block}
thead{position:absolute;left:-9999px}
table{border:0;background:none}
tr{background:var(--card);border:1px solid var(--line);border-radius:10px;margin-bottom:.75rem;padding:.25rem 0}
td{border:0;padding:.35rem .9rem;display:grid;grid-template-columns:7rem 1fr;gap:.5rem;align-items:baseline}
td::before{content:attr(data-label);font-size:.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
}
`;

const JS = `document.querySelectorAll('[data-copy]').forEach(function (button) {
  var field = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById(button.getAttribute('data-status'));
  button.hidden = false;
  button.addEventListener('click', function () {
    field.select();
    var done = function () { if (status) status.textContent = 'Copied to the clipboard.'; };
    if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand('copy'); done(); });
    else { document.execCommand('copy'); done(); }
  });
});
`;

/** The tab's icon: a "c" on the header's ink. Named by every page, so the browser never asks for
 * /favicon.ico (a 404, logged as an error in its console). */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d2330"/><path d="M21.5 11.2a7 7 0 1 0 0 9.6" fill="none" stroke="#fff" stroke-width="3.6" stroke-linecap="round"/></svg>
`;

export function assetRoutes(app: FastifyInstance): void {
  const serve = (url: string, type: string, body: string) =>
    app.get(url, { schema: { hide: true }, config: { console: 'asset' } }, async (_request, reply) =>
      reply
        .headers({
          'content-type': type,
          'cache-control': 'public, max-age=3600',
          'x-content-type-options': 'nosniff',
        })
        .send(body),
    );
  serve('/assets/console.css', 'text/css; charset=utf-8', CSS);
  serve('/assets/console.js', 'text/javascript; charset=utf-8', JS);
  serve('/assets/icon.svg', 'image/svg+xml', ICON);
}
