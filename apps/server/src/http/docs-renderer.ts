/**
 * The files of the `/docs` page: Scalar's self-contained browser bundle (the API reference renderer)
 * and the few lines that start it. Both are served by this server, under names that carry a hash of
 * their content, so browsers keep them for good and nothing is ever fetched from a CDN.
 *
 * Scalar's npm package brings its build tool chain (hundreds of MB) with it, so the server does
 * not depend on it at run time: the build copies the one browser bundle into `dist/docs-renderer/`
 * (see tsup.config.ts). Run from its sources, in this repository, the server reads the bundle from
 * the package, which is a development dependency here.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { DOCS_STYLE_PRELUDE } from "./docs-style-prelude.js";

const require = createRequire(import.meta.url);

/** Where the bundle is copied by the build, relative to the server package's root. */
const PACKAGED_RENDERER = "dist/docs-renderer/scalar.js";

/** The path of Scalar's standalone browser bundle: the packaged copy, else the package's own. */
function rendererBundlePath(): string {
  const serverRoot = dirname(require.resolve("@genvideo/server/package.json"));
  const packaged = join(serverRoot, PACKAGED_RENDERER);
  if (existsSync(packaged)) return packaged;
  // The package's exports hide its browser build; its main module sits in the same dist/.
  return join(dirname(require.resolve("@scalar/api-reference")), "browser/standalone.js");
}

/**
 * Starts Scalar on the page's one element. Every option that would reach another host is off: no
 * web fonts (system fonts instead), no telemetry, no AI agent, no request client; the samples shown
 * are the document's own `x-codeSamples` (curl and TypeScript), not Scalar's generated ones.
 */
const START_SCRIPT = `Scalar.createApiReference("#reference", ${JSON.stringify({
  url: "/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  hiddenClients: true,
  defaultOpenAllTags: true,
  showDeveloperTools: "never",
  documentDownloadType: "json",
  persistAuth: false,
})});\n`;

export interface DocsAsset {
  /** Path under which the page loads it, with a content hash. */
  path: string;
  body: Buffer;
  /** The same bytes compressed, made on first use (the bundle is about 5 MB, 1.2 MB in brotli). */
  brotli(): Promise<Buffer>;
  gzip(): Promise<Buffer>;
}

function asset(name: string, body: Buffer): DocsAsset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
  let brotli: Promise<Buffer> | undefined;
  let gzipped: Promise<Buffer> | undefined;
  return {
    path: `/docs/assets/${name}.${hash}.js`,
    body,
    brotli: () =>
      (brotli ??= promisify(brotliCompress)(body, {
        // Quality 5: a second of one core for the bundle, once; 11 would take forty.
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      })),
    gzip: () => (gzipped ??= promisify(gzip)(body, { level: 9 })),
  };
}

export interface DocsAssets {
  /** Runs first: lets the renderer's own styles through the page's policy (docs-style-prelude.ts). */
  prelude: DocsAsset;
  renderer: DocsAsset;
  start: DocsAsset;
}

/** Reads the renderer once; throws with the path it looked at when the bundle is missing. */
export function loadDocsAssets(bundlePath: string = rendererBundlePath()): DocsAssets {
  return {
    prelude: asset("styles", Buffer.from(DOCS_STYLE_PRELUDE)),
    renderer: asset("scalar", readFileSync(bundlePath)),
    start: asset("reference", Buffer.from(START_SCRIPT)),
  };
}
