/**
 * `/docs`: the API reference, rendered in the browser by Scalar from `/openapi.json`. Everything the
 * page loads comes from this server: it works offline, on a laptop on a plane, like the server
 * itself, and its Content-Security-Policy refuses anything else.
 */
import { randomBytes } from "node:crypto";
import type { Context, Hono } from "hono";
import { type DocsAsset, loadDocsAssets } from "./docs-renderer.js";
import { SERVER_FAVICON } from "./favicon.js";

/**
 * Scripts from this server only, no inline script, no eval. Styles from this server, or in `<style>`
 * elements carrying the page's nonce: Scalar reads it from `<meta property="csp-nonce">` for some,
 * and the page's first script stamps it on the others that scripts create (docs-style-prelude.ts).
 * No style attribute in markup and no `'unsafe-inline'`. Images may be data: URIs (Scalar's icons).
 */
function docsContentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/** The server's icon, inline (the policy allows data: images), as on the dashboard. */
const FAVICON_URI = `data:image/svg+xml,${encodeURIComponent(SERVER_FAVICON)}`;

function page(title: string, nonce: string, scripts: string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="csp-nonce" content="${nonce}">
<title>${title}</title>
<link rel="icon" href="${FAVICON_URI}" type="image/svg+xml">
</head>
<body>
<div id="reference"></div>
<noscript>The reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
${scripts.map((src) => `<script src="${src}"></script>`).join("\n")}
</body>
</html>
`;
}

async function serveAsset(c: Context, asset: DocsAsset): Promise<Response> {
  const accepted = c.req.header("accept-encoding") ?? "";
  const [encoding, body] = /\bbr\b/.test(accepted)
    ? ["br", await asset.brotli()]
    : /\bgzip\b/.test(accepted)
      ? ["gzip", await asset.gzip()]
      : [undefined, asset.body];
  const headers: Record<string, string> = {
    "Content-Type": "text/javascript; charset=utf-8",
    // The name carries the content's hash: a new version is a new name.
    "Cache-Control": "public, max-age=31536000, immutable",
    Vary: "Accept-Encoding",
    "X-Content-Type-Options": "nosniff",
    ...(encoding ? { "Content-Encoding": encoding } : {}),
  };
  return c.body(new Uint8Array(body), 200, headers);
}

/** Adds `/docs` and its two scripts to `app`. */
export function docsRoutes(app: Hono, title = "genvideo API reference"): void {
  let assets: ReturnType<typeof loadDocsAssets> | undefined;
  const load = () => (assets ??= loadDocsAssets());

  app.get("/docs", (c) => {
    const { prelude, renderer, start } = load();
    // Compressing the bundle takes a second once: start it now, before the browser asks for it.
    if (/\bbr\b/.test(c.req.header("accept-encoding") ?? "")) renderer.brotli().catch(() => {});
    const nonce = randomBytes(16).toString("base64");
    return c.html(page(title, nonce, [prelude.path, renderer.path, start.path]), 200, {
      "Content-Security-Policy": docsContentSecurityPolicy(nonce),
      "Cache-Control": "no-cache",
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
    });
  });

  app.get("/docs/assets/:file", (c) => {
    const { prelude, renderer, start } = load();
    const asset = [prelude, renderer, start].find(({ path }) => path === c.req.path);
    return asset ? serveAsset(c, asset) : c.notFound();
  });
}
