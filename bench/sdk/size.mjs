// Bundle size of @genvideo/sdk next to the SDKs its issue names, measured the same way for all and
// the same way as the SDK's own size budget (packages/sdk/scripts/bundle-size.mjs says how).
// Run after `pnpm --filter @genvideo/sdk build`:
//   node bench/sdk/size.mjs [--json]
// A package that fails to bundle is printed and fails the run (a second either way, so --smoke
// changes nothing here).
import { measureBundle } from "../../packages/sdk/scripts/bundle-size.mjs";

const packages = ["@genvideo/sdk", "openai", "replicate", "@runwayml/sdk", "@fal-ai/client"];
const benchDirectory = new URL("..", import.meta.url).pathname;

async function measure(name) {
  const { minified, gzipped } = await measureBundle(name, benchDirectory);
  return { name, minified, gzipped };
}

const results = [];
for (const name of packages) {
  try {
    results.push(await measure(name));
  } catch (error) {
    results.push({ name, error: error.message.split("\n")[0] });
  }
}

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const kilobytes = (bytes) => `${(bytes / 1024).toFixed(1)} KB`.padStart(9);
  const ours = results[0].gzipped;
  console.log(`${"package".padEnd(16)} ${"min".padStart(9)} ${"min+gzip".padStart(9)}  vs @genvideo/sdk`);
  for (const { name, minified, gzipped, error } of results) {
    if (error) console.log(`${name.padEnd(16)} failed to bundle: ${error}`);
    else
      console.log(
        `${name.padEnd(16)} ${kilobytes(minified)} ${kilobytes(gzipped)}  ${(gzipped / ours).toFixed(1)}x`,
      );
  }
}
process.exitCode = results.some((result) => result.error) ? 1 : 0;
