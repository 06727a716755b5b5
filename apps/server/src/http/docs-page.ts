/**
 * `/docs`: the API reference as one server-rendered HTML page built from the
 * OpenAPI document. No script and no CDN: it must work offline, on a laptop
 * on a plane, exactly like the server itself.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

export function renderDocsPage(document: JsonObject): string {
  const resolve = (value: Json | undefined): JsonObject => {
    // Local references only (`#/components/...`): the document is self-contained.
    let current = asObject(value);
    for (
      let depth = 0;
      typeof current.$ref === "string" && current.$ref.startsWith("#/") && depth < 10;
      depth++
    ) {
      let target: Json | undefined = document;
      for (const part of current.$ref.slice(2).split("/"))
        target = asObject(target)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
      current = asObject(target);
    }
    return current;
  };
  const info = asObject(document.info);
  const title = text(info.title) || "API reference";
  const paths = asObject(document.paths);
  const schemas = asObject(asObject(document.components).schemas);
  const operations: string[] = [];
  const toc: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = asObject(asObject(item)[method]);
      if (Object.keys(operation).length === 0) continue;
      const anchor = `op-${method}-${path.replace(/[^A-Za-z0-9]+/g, "-")}`;
      toc.push(`<li><a href="#${anchor}"><code>${method.toUpperCase()} ${escapeHtml(path)}</code></a></li>`);
      operations.push(renderOperation(anchor, method, path, operation, resolve));
    }
  }
  const schemaSections = Object.entries(schemas).map(
    ([name, schema]) =>
      `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${block(schema)}</section>`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 960px; padding: 1rem 2rem; color: #1d1d1f; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: #f5f5f7; padding: .75rem; overflow: auto; border-radius: 6px; }
section.operation { border-top: 1px solid #ddd; padding-top: .5rem; margin-top: 1.5rem; }
.method { display: inline-block; min-width: 4em; font-weight: 700; text-transform: uppercase; }
table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: .25rem .5rem; text-align: left; vertical-align: top; }
</style>
</head>
<body>
<h1>${escapeHtml(title)} <small>${escapeHtml(text(info.version))}</small></h1>
${info.description ? `<p>${escapeHtml(text(info.description))}</p>` : ""}
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${escapeHtml(text(document.openapi))}).</p>
<h2>Operations</h2>
<ul>${toc.join("")}</ul>
${operations.join("\n")}
<h2>Schemas</h2>
${schemaSections.join("\n")}
</body>
</html>
`;
}

function renderOperation(
  anchor: string,
  method: string,
  path: string,
  operation: JsonObject,
  resolve: (value: Json | undefined) => JsonObject,
): string {
  const parts = [
    `<section class="operation" id="${anchor}">`,
    `<h3><span class="method">${method}</span> <code>${escapeHtml(path)}</code></h3>`,
  ];
  if (operation.summary) parts.push(`<p><strong>${escapeHtml(text(operation.summary))}</strong></p>`);
  if (operation.description) parts.push(`<p>${escapeHtml(text(operation.description))}</p>`);
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
  if (parameters.length > 0) {
    const rows = parameters.map((parameter) => {
      const p = resolve(parameter);
      return `<tr><td><code>${escapeHtml(text(p.name))}</code></td><td>${escapeHtml(text(p.in))}</td><td>${
        p.required ? "yes" : "no"
      }</td><td>${escapeHtml(text(p.description))}</td></tr>`;
    });
    parts.push(
      `<h4>Parameters</h4><table><tr><th>Name</th><th>In</th><th>Required</th><th>Description</th></tr>${rows.join("")}</table>`,
    );
  }
  const body = resolve(operation.requestBody);
  if (Object.keys(body).length > 0)
    parts.push(`<h4>Request body</h4>${renderContent(asObject(body.content))}`);
  const responses = asObject(operation.responses);
  if (Object.keys(responses).length > 0) {
    parts.push("<h4>Responses</h4>");
    for (const [status, response] of Object.entries(responses)) {
      const r = resolve(response);
      parts.push(
        `<p><code>${escapeHtml(status)}</code> ${escapeHtml(text(r.description))}</p>${renderContent(asObject(r.content))}`,
      );
    }
  }
  parts.push("</section>");
  return parts.join("\n");
}

function renderContent(content: JsonObject): string {
  const parts: string[] = [];
  for (const [mediaType, media] of Object.entries(content)) {
    const m = asObject(media);
    parts.push(`<p><code>${escapeHtml(mediaType)}</code></p>`);
    if (m.schema !== undefined) parts.push(`<details><summary>Schema</summary>${block(m.schema)}</details>`);
    if (m.example !== undefined) parts.push(`<p>Example</p>${block(m.example)}`);
    for (const [name, example] of Object.entries(asObject(m.examples))) {
      const e = asObject(example);
      parts.push(`<p>Example: ${escapeHtml(text(e.summary) || name)}</p>${block(e.value ?? null)}`);
    }
  }
  return parts.join("\n");
}

function block(value: Json | undefined): string {
  return `<pre>${escapeHtml(JSON.stringify(value ?? null, null, 2))}</pre>`;
}

function asObject(value: Json | undefined): JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function text(value: Json | undefined): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
