import { describe, expect, it } from "vitest";
import { ASPECT_RATIOS, FAILURE_CATALOG, FAILURE_CODES, MODEL_TYPES } from "./catalog.js";
import { AUTH_ERROR_MESSAGES, ERROR_CODES, HTTP_REASON_PHRASES } from "./error-codes.js";
import { WEBHOOK_HEADERS } from "./http.js";
import * as limits from "./limits.js";
import { buildOpenApiDocument } from "./openapi.js";
import { GENERATION_REQUEST_FIELDS } from "./request.js";
import { webhookBody } from "./webhook.js";

// The prose contract must not drift from the document generated from the schemas: everything the
// document names (paths, methods, codes, statuses, fields, headers) and every limit appears in it.
// `node:fs` through a computed specifier: the package compiles without Node types (it runs in browsers).
const fs = (await import("node:fs" as string)) as { readFileSync(path: URL, encoding: "utf8"): string };
// Table rows are compared cell by cell: the formatter pads cells to align the columns.
const apiDoc = fs
  .readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8")
  .split("\n")
  .map((line) => (line.startsWith("|") ? `| ${cellsOf(line).join(" | ")} |` : line))
  .join("\n");
const document = buildOpenApiDocument();

function cellsOf(row: string): string[] {
  return row
    .trim()
    .slice(1, -1)
    .split("|")
    .map((cell) => cell.trim());
}

function tableRowsStartingWith(cell: string): string[] {
  return apiDoc.split("\n").filter((line) => line.startsWith(`| ${cell} |`));
}

describe("docs/api.md", () => {
  it("lists every operation with its method and success status", () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const success = Object.keys(operation.responses as object).find((status) => status.startsWith("2"));
        const row = tableRowsStartingWith(`\`${method.toUpperCase()}\``).find((line) =>
          line.includes(`| \`${path}\` |`),
        );
        expect(row, `${method.toUpperCase()} ${path}`).toBeDefined();
        expect(row).toContain(`| ${success} |`);
      }
    }
  });

  it("gives every error code its status and reason phrase", () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      const rows = tableRowsStartingWith(`\`${code}\``);
      expect(rows, code).toHaveLength(1);
      expect(rows[0]).toContain(`| ${status} | ${HTTP_REASON_PHRASES[status]} |`);
    }
  });

  it("names every error code the document's examples use, and nothing else", () => {
    const used = new Set(
      JSON.stringify(document)
        .match(/"code":"[A-Z_]+"/g)
        ?.map((match) => match.slice(8, -1)),
    );
    for (const code of used) expect(apiDoc).toContain(`\`${code}\``);
    const documented = apiDoc
      .match(/^\| `([A-Z_]+)` \| \d{3} \|/gm)
      ?.map((row) => row.slice(3, row.indexOf("`", 3)));
    expect(documented?.sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it("quotes the three auth messages word for word", () => {
    for (const message of Object.values(AUTH_ERROR_MESSAGES)) {
      expect(apiDoc).toContain(`{ "error": "Unauthorized", "message": "${message}" }`);
    }
  });

  it("names every failure code, request field, model, aspect ratio and webhook header", () => {
    for (const code of FAILURE_CODES) {
      const { meaning, refunded } = FAILURE_CATALOG[code];
      expect(tableRowsStartingWith(`\`${code}\``), code).toEqual([
        `| \`${code}\` | ${meaning} | ${refunded ? "refunded" : "kept"} |`,
      ]);
    }
    for (const field of GENERATION_REQUEST_FIELDS)
      expect(tableRowsStartingWith(`\`${field}\``), field).not.toHaveLength(0);
    for (const value of [...MODEL_TYPES, ...ASPECT_RATIOS]) expect(apiDoc).toContain(`\`${value}\``);
    for (const header of Object.values(WEBHOOK_HEADERS))
      expect(tableRowsStartingWith(`\`${header}\``), header).toHaveLength(1);
    for (const parameter of Object.values(document.components.parameters))
      expect(apiDoc).toContain(`\`${parameter.name}\``);
  });

  it("states every limit with the exported value", () => {
    const mebibytes = (bytes: number) => `${bytes / 1024 / 1024} MiB`;
    const expectations = [
      `1 to ${limits.PROMPT_MAX_LENGTH} characters after trimming`,
      `${mebibytes(limits.IMAGE_MAX_BYTES)} decoded, ${limits.IMAGE_MAX_SIDE_PX} px a side`,
      `${limits.REFERENCE_IMAGES_MIN_COUNT} to ${limits.REFERENCE_IMAGES_MAX_COUNT}`,
      `| Request body | ${mebibytes(limits.REQUEST_BODY_MAX_BYTES)} |`,
      `| Body values | ${limits.REQUEST_BODY_MAX_VALUES} in its arrays and objects |`,
      `| Issues listed | ${limits.VALIDATION_ISSUES_MAX_COUNT} per refused request |`,
      `| \`callback_url\` | ${limits.CALLBACK_URL_MAX_LENGTH} characters |`,
      `${limits.IDEMPOTENCY_KEY_MAX_LENGTH} characters, kept ${limits.IDEMPOTENCY_KEY_TTL_MS / 3_600_000} hours`,
      `| Task deadline | ${limits.TASK_DEADLINE_MS / 60_000} minutes from creation |`,
      `${limits.WEBHOOK_MAX_ATTEMPTS} attempts, ${limits.WEBHOOK_RETRY_SPACING_MS / 1000} s apart; ` +
        `${limits.WEBHOOK_ATTEMPT_TIMEOUT_MS / 1000} s per attempt, ${limits.WEBHOOK_CONNECT_TIMEOUT_MS / 1000} s to connect; ` +
        `${limits.WEBHOOK_RESPONSE_MAX_BYTES / 1024} KiB of the answer read`,
      `valid ${limits.VIDEO_URL_TTL_MS / 86_400_000} days by default`,
      `${limits.RATE_LIMIT_CREATES_PER_MINUTE} creates and ${limits.RATE_LIMIT_STATUS_READS_PER_MINUTE} reads per minute per key`,
      `| Failed auth | ${limits.RATE_LIMIT_FAILED_AUTHENTICATIONS_PER_MINUTE} failed authentications per minute per client address |`,
    ];
    for (const text of expectations) expect(apiDoc).toContain(text);
  });
});

describe("docs/testing.md", () => {
  const testingDoc = fs.readFileSync(new URL("../../../docs/testing.md", import.meta.url), "utf8");

  it("gives every failure code's prompt marker a row, saying what happens to the credits", () => {
    for (const code of FAILURE_CODES) {
      const { marker, refunded } = FAILURE_CATALOG[code];
      const row = testingDoc.split("\n").find((line) => line.startsWith(`| \`${marker}\``));
      expect(row, marker).toBeDefined();
      expect(cellsOf(row!)[1]).toContain(`\`${code}\``);
      expect(cellsOf(row!)[1]).toContain(refunded ? "(credits refunded)" : "(credits kept)");
    }
  });
});

describe("the webhook body's fields, as the guides list them", () => {
  // The order is the one webhookBody writes, the only writer of webhook bodies.
  const fields = Object.keys(
    JSON.parse(
      webhookBody({ success: false, message: "TIMEOUT", task_id: crypto.randomUUID(), video_url: null }),
    ) as object,
  );
  const sentence = `${["zero", "one", "two", "three", "four", "five"][fields.length]} fields, in this order: ${fields.map((field) => `\`${field}\``).join(", ")}.`;

  it.each(["api.md", "webhooks.md"])("docs/%s names them in the order they are sent", (name) => {
    const text = fs.readFileSync(new URL(`../../../docs/${name}`, import.meta.url), "utf8");
    expect(text.replace(/\s+/g, " ")).toContain(sentence);
  });
});
