// Writes openapi.json from the built package. Fails the build when the builder is missing or
// returns something that is not an OpenAPI 3.1 document, rather than shipping a stale or empty file.
import { writeFileSync } from "node:fs";

const schema = await import("../dist/index.js");
if (typeof schema.buildOpenApiDocument !== "function") {
  console.error(
    "write-openapi: dist/index.js does not export buildOpenApiDocument(); openapi.json not written",
  );
  process.exit(1);
}
const document = schema.buildOpenApiDocument();
if (typeof document?.openapi !== "string" || !document.openapi.startsWith("3.1") || !document.paths) {
  console.error("write-openapi: buildOpenApiDocument() did not return an OpenAPI 3.1 document");
  process.exit(1);
}
writeFileSync(new URL("../openapi.json", import.meta.url), `${JSON.stringify(document, null, 2)}\n`);
console.log(`write-openapi: wrote openapi.json (${Object.keys(document.paths).length} paths)`);
