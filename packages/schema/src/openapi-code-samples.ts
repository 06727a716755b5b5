/**
 * `x-codeSamples` of every operation, written from the operation itself: its method, path, the
 * examples of its parameters and of its request body. A sample cannot drift from the document,
 * since it is made from it on each build; the SDK form of each operation is the one thing written
 * by hand here (which client method it is), and the SDK's type check of these samples keeps that
 * honest. Reference renderers (Scalar, Redoc, Stoplight Elements) show them beside the operation.
 */

type Json = Record<string, unknown>;

/** One sample, in the shape `x-codeSamples` expects. */
export interface CodeSample {
  lang: "Shell" | "TypeScript";
  label: string;
  source: string;
}

interface SampleRequest {
  method: string;
  /** The URL with the examples of the path and query parameters filled in. */
  url: string;
  /** False for the routes whose credential is the URL's signature (the video download). */
  authorized: boolean;
  headers: [string, string][];
  body?: unknown;
}

const sdkClient = (serverUrl: string, imports = "") =>
  `${imports}import { GenVideo } from "@genvideo/sdk";\n\n// The API key comes from GENVIDEO_API_KEY.\nconst client = new GenVideo({ baseUrl: ${JSON.stringify(serverUrl)} });\n`;

/** The client code of each operation: the SDK's method where it has one, else `fetch`. */
const TYPESCRIPT: Record<string, (request: SampleRequest, serverUrl: string) => string> = {
  createTask: (request, serverUrl) =>
    `${sdkClient(serverUrl)}\nconst task = await client.createTask(${indentJson(request.body)});\nconsole.log(task.task_id);\n`,
  getTaskStatus: (request, serverUrl) =>
    `${sdkClient(serverUrl)}\nconst status = await client.getStatus(${JSON.stringify(lastSegment(request.url))});\n` +
    `if (status.status === "completed") console.log(status.video_url);\n` +
    `else if (status.status === "failed") console.log(status.message); // the failure code\n` +
    `else console.log(status.status, status.progress);\n\n` +
    `// Or wait until it ends (throws TaskFailedError when it fails):\n` +
    `const video = await client.pollUntilDone(status.task_id);\n`,
  downloadVideo: (request, serverUrl) =>
    `${sdkClient(serverUrl, `import { writeFile } from "node:fs/promises";\n`)}\n` +
    `// video_url is signed: no Authorization header, the URL is the credential until it expires.\n` +
    `const video = await client.pollUntilDone(${JSON.stringify(taskIdOfVideo(request.url))});\n` +
    `const response = await fetch(video.video_url);\n` +
    `await writeFile("video.mp4", new Uint8Array(await response.arrayBuffer()));\n`,
};

/** An operation the SDK has no method for: the same call with `fetch`. */
function fetchSample(request: SampleRequest): string {
  const init: string[] = [];
  if (request.method !== "GET") init.push(`method: ${JSON.stringify(request.method)}`);
  const headers = [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template string.
    ...(request.authorized ? ["Authorization: `Bearer ${process.env.GENVIDEO_API_KEY}`"] : []),
    ...request.headers.map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`),
  ];
  if (headers.length > 0) init.push(`headers: { ${headers.join(", ")} }`);
  const call = `await fetch(${JSON.stringify(request.url)}${init.length > 0 ? `, {\n  ${init.join(",\n  ")},\n}` : ""})`;
  const read =
    request.method === "HEAD"
      ? `console.log(response.status, response.headers.get("content-length"), response.headers.get("etag"));`
      : `console.log(response.status, await response.json());`;
  return `const response = ${call};\n${read}\n`;
}

function curlSample(request: SampleRequest): string {
  const lines = [
    request.method === "GET"
      ? `curl ${shellQuote(request.url)}`
      : request.method === "HEAD"
        ? `curl --head ${shellQuote(request.url)}`
        : `curl -X ${request.method} ${shellQuote(request.url)}`,
  ];
  // Double quotes: the shell fills in the key from the environment.
  if (request.authorized) lines.push(`-H "Authorization: Bearer $GENVIDEO_API_KEY"`);
  for (const [name, value] of request.headers) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (request.body !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(request.body, null, 2))}`);
  }
  if (request.method === "GET" && !request.authorized) lines.push("-o video.mp4");
  return `${lines.join(" \\\n  ")}\n`;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A JSON value as a TypeScript object literal: keys that are identifiers lose their quotes. */
function indentJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/^(\s*)"([A-Za-z_$][\w$]*)":/gm, "$1$2:");
}

function lastSegment(url: string): string {
  return new URL(url).pathname.split("/").pop() ?? "";
}

function taskIdOfVideo(url: string): string {
  return lastSegment(url).replace(/\.mp4$/, "");
}

/** The request an operation's examples describe, one per request body example (or one without). */
function sampleRequests(
  method: string,
  path: string,
  operation: Json,
  serverUrl: string,
  resolve: (value: unknown) => Json,
): { name?: string; summary?: string; request: SampleRequest }[] {
  const parameters = ((operation.parameters as unknown[] | undefined) ?? []).map(resolve);
  let filledPath = path;
  const query = new URLSearchParams();
  const headers: [string, string][] = [];
  for (const parameter of parameters) {
    const example = parameter.example;
    if (example === undefined) continue;
    if (parameter.in === "path") filledPath = filledPath.replace(`{${parameter.name}}`, String(example));
    else if (parameter.in === "query" && parameter.required)
      query.set(String(parameter.name), String(example));
    // Only what a request needs: an optional header's example (an Idempotency-Key, which names one
    // operation) would make a copied sample answer its first response again on every later run.
    else if (parameter.in === "header" && parameter.required)
      headers.push([String(parameter.name), String(example)]);
  }
  const url = `${serverUrl}${filledPath}${query.size > 0 ? `?${query}` : ""}`;
  const base = {
    method: method.toUpperCase(),
    url,
    authorized: !Array.isArray(operation.security) || operation.security.length > 0,
    headers,
  };
  const content = resolve(operation.requestBody).content as Record<string, Json> | undefined;
  const examples = content?.["application/json"]?.examples as Record<string, Json> | undefined;
  if (!examples) return [{ request: base }];
  return Object.entries(examples).map(([name, example]) => ({
    name,
    summary: String(example.summary ?? name),
    request: { ...base, body: example.value },
  }));
}

/**
 * The samples of one operation: curl, and TypeScript with `@genvideo/sdk` (or `fetch` where the
 * SDK has no method), one pair for each example of the request body.
 */
export function codeSamplesOf(
  method: string,
  path: string,
  operation: Json,
  serverUrl: string,
  resolve: (value: unknown) => Json,
): CodeSample[] {
  const typescript = TYPESCRIPT[String(operation.operationId)];
  return sampleRequests(method, path, operation, serverUrl, resolve).flatMap(({ summary, request }) => {
    const suffix = summary ? `: ${summary}` : "";
    return [
      { lang: "Shell", label: `curl${suffix}`, source: curlSample(request) },
      typescript
        ? { lang: "TypeScript", label: `@genvideo/sdk${suffix}`, source: typescript(request, serverUrl) }
        : { lang: "TypeScript", label: `fetch${suffix}`, source: fetchSample(request) },
    ];
  });
}

/** Adds `x-codeSamples` to every operation of `paths`, in place. */
export function addCodeSamples(
  paths: Record<string, Record<string, Json>>,
  serverUrl: string,
  resolve: (value: unknown) => Json,
): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      operation["x-codeSamples"] = codeSamplesOf(method, path, operation, serverUrl, resolve);
    }
  }
}
