// Size budget of the published bundle: everything `@genvideo/sdk` exports, with every dependency
// (ky, the parts of @genvideo/schema in use), minified and gzipped, as an application bundler ships it.
// Run after `pnpm build`; `pnpm lint` fails when the bundle is over budget, or when it reaches for
// something only Node has: the same bundle must run in Bun, Deno, Workers and (opted in) browsers.
import { measureBundle } from "./bundle-size.mjs";

const budget = 16 * 1024;
const entry = new URL("../dist/index.js", import.meta.url).pathname;

const { code, gzipped, metafile } = await measureBundle(entry, process.cwd(), {
  metafile: true,
  logLevel: "error",
});
const kilobytes = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;

if (process.argv.includes("--verbose")) {
  const inputs = Object.entries(Object.values(metafile.outputs)[0].inputs).sort(
    (a, b) => b[1].bytesInOutput - a[1].bytesInOutput,
  );
  for (const [file, { bytesInOutput }] of inputs)
    console.log(`${String(bytesInOutput).padStart(7)}  ${file}`);
}
const text = new TextDecoder().decode(code);
const nodeOnly = [/["']node:/, /\brequire\(/, /(?<![A-Za-z])Buffer\b/, /\b__dirname\b/].filter((pattern) =>
  pattern.test(text),
);
if (nodeOnly.length > 0) {
  console.error(`@genvideo/sdk uses what only Node has: ${nodeOnly.join(", ")}`);
  process.exit(1);
}
console.log(
  `@genvideo/sdk: ${kilobytes(code.length)} minified, ${kilobytes(gzipped)} min+gzip (budget ${kilobytes(budget)})`,
);
if (gzipped > budget) {
  console.error(`@genvideo/sdk is over its size budget by ${kilobytes(gzipped - budget)}`);
  process.exit(1);
}
