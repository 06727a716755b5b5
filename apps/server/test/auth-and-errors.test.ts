/**
 * The wire contract's refusals, through real HTTP: every auth error body of
 * docs/api.md#authentication and every code of docs/api.md#errors, each with its body.
 */

import { REQUEST_BODY_MAX_BYTES } from "@genvideo/schema";
import { PNG_IMAGE } from "@genvideo/schema/testing";
import { describe, expect, it } from "vitest";
import { createTask } from "./support/api.js";
import { runCliInProcess, TEST_API_KEY } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({
  env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_RATE_LIMITS: "off", GENVIDEO_TIME_SCALE: "600" },
});

const REQUIRED = { error: "Unauthorized", message: "Authorization header required" };
const MALFORMED = { error: "Unauthorized", message: "Invalid authorization format. Use: Bearer <API_KEY>" };
const INVALID = { error: "Unauthorized", message: "Invalid API key" };

describe("authentication errors (401, exact bodies)", () => {
  it.each([
    ["no Authorization header", undefined, REQUIRED],
    ["an empty Authorization header", "", REQUIRED],
    ["another scheme", `Basic ${TEST_API_KEY}`, MALFORMED],
    ["Bearer without a key", "Bearer", MALFORMED],
    ["a bare key", TEST_API_KEY, MALFORMED],
    ["an unknown key", "Bearer gen_sk_0123456789abcdefghijABCDEFGHIJ0123456789", INVALID],
    ["a key of the wrong shape", "Bearer not-a-key", INVALID],
  ])("%s", async (_, authorization, body) => {
    for (const [method, path] of [
      ["GET", "/api/gen/status/00000000-0000-4000-8000-000000000000"],
      ["POST", "/api/gen/generate"],
      ["GET", "/api/gen/account"],
    ] as const) {
      const response = await server.fetch(path, {
        method,
        headers: authorization === undefined ? {} : { authorization },
        ...(method === "POST" ? { body: "{not json" } : {}),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(body);
    }
  });

  it("never accepts a key in the query string", async () => {
    for (const name of ["api_key", "key", "token", "access_token"]) {
      const response = await server.fetch(`/api/gen/account?${name}=${TEST_API_KEY}`);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(REQUIRED);
    }
  });

  it("checks auth before the route exists", async () => {
    const response = await server.fetch("/api/gen/nothing-here");
    expect(response.status).toBe(401);
  });
});

const PROMPT = { prompt: "a lighthouse at dusk" };

describe("create rejections", () => {
  const post = (body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
    server.api("/api/gen/generate", { method: "POST", body, headers });

  const bad = (name: string, body: unknown, code = "INVALID_REQUEST") =>
    [name, 400, code, typeof body === "string" ? body : JSON.stringify(body)] as const;

  it.each([
    bad("malformed JSON", "{prompt:"),
    bad("a JSON array", "[]"),
    bad("no prompt", {}),
    bad("an empty prompt", { prompt: "   " }),
    bad("a prompt over 2000 characters", { prompt: "x".repeat(2001) }),
    bad("an unknown field", { ...PROMPT, duration: 5 }),
    bad("an unknown model", { ...PROMPT, model_type: "gen-9" }),
    bad("an unknown aspect ratio", { ...PROMPT, aspect_ratio: "4:3" }),
    bad("a start frame alone", { ...PROMPT, start_frame: PNG_IMAGE }),
    bad("frames mixed with reference images", {
      ...PROMPT,
      start_frame: PNG_IMAGE,
      end_frame: PNG_IMAGE,
      reference_images: [PNG_IMAGE],
    }),
    bad("five reference images", { ...PROMPT, reference_images: Array(5).fill(PNG_IMAGE) }),
    bad("an image that is not a data URI", { ...PROMPT, reference_images: ["https://x/y.png"] }),
    bad("an image whose bytes are not the declared type", {
      ...PROMPT,
      reference_images: [PNG_IMAGE.replace("image/png", "image/jpeg")],
    }),
    bad("a callback that is not a URL", { ...PROMPT, callback_url: "not a url" }),
    bad(
      "a plain-http callback",
      { ...PROMPT, callback_url: "http://example.com/hook" },
      "INVALID_CALLBACK_URL",
    ),
    bad("a loopback callback", { ...PROMPT, callback_url: "https://127.0.0.1/hook" }, "INVALID_CALLBACK_URL"),
    bad(
      "a private-network callback",
      { ...PROMPT, callback_url: "https://10.1.2.3/hook" },
      "INVALID_CALLBACK_URL",
    ),
  ])("%s → %i %s", async (_, status, code, body) => {
    const response = await post(body);
    expect(response.status).toBe(status);
    const json = (await response.json()) as Record<string, unknown>;
    expect(json).toMatchObject({ success: false, error: "Bad Request", code });
    expect(typeof json.message).toBe("string");
    if (code === "INVALID_REQUEST" && body.startsWith("{") && body !== "{prompt:") {
      expect(json.issues).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: expect.any(String) })]),
      );
    }
  });

  it("names the unknown field", async () => {
    const json = (await (await post(JSON.stringify({ ...PROMPT, seed: 1 }))).json()) as {
      issues: { path: string }[];
    };
    expect(json.issues.map((issue) => issue.path)).toContain("seed");
  });

  it.each([
    ["no Content-Type", {}],
    ["text/plain", { "content-type": "text/plain" }],
    ["form data", { "content-type": "application/x-www-form-urlencoded" }],
  ])("%s → 415 UNSUPPORTED_MEDIA_TYPE", async (_, headers) => {
    const response = await post(JSON.stringify(PROMPT), headers);
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({
      success: false,
      error: "Unsupported Media Type",
      code: "UNSUPPORTED_MEDIA_TYPE",
    });
  });

  it("a body over the limit → 413 PAYLOAD_TOO_LARGE", async () => {
    const response = await post(JSON.stringify({ prompt: "x".repeat(REQUEST_BODY_MAX_BYTES) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      success: false,
      error: "Content Too Large",
      code: "PAYLOAD_TOO_LARGE",
    });
  });

  it("no credits → 402 INSUFFICIENT_CREDITS, and nothing is charged or created", async () => {
    expect(
      (await runCliInProcess(["accounts", "create", "broke", "--credits", "1"], server.dataDir)).code,
    ).toBe(0);
    const created = await runCliInProcess(["keys", "create", "--account", "broke"], server.dataDir);
    const key = created.stdout.split("\n").find((line) => line.startsWith("gen_sk_"))!;
    const expensive = await server.api("/api/gen/generate", {
      json: { ...PROMPT, model_type: "gen-3" },
      key,
    });
    expect(expensive.status).toBe(402);
    expect(await expensive.json()).toMatchObject({
      success: false,
      error: "Payment Required",
      code: "INSUFFICIENT_CREDITS",
    });
    await createTask(server, PROMPT, key);
    const empty = await server.api("/api/gen/generate", { json: PROMPT, key });
    expect(empty.status).toBe(402);
    expect(await (await server.api("/api/gen/account", { key })).json()).toMatchObject({ credits: 0 });
  });
});

describe("status rejections", () => {
  it("a task id that is not a UUID → 400 INVALID_REQUEST", async () => {
    const response = await server.api("/api/gen/status/not-a-uuid");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "Bad Request", code: "INVALID_REQUEST" });
  });

  it("an unknown task → 404 NOT_FOUND", async () => {
    const response = await server.api("/api/gen/status/6f1c2a9e-8a47-4c6e-9d0b-3c1e2f4a5b6c");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: "Not Found", code: "NOT_FOUND" });
  });

  it("an unknown route → 404 NOT_FOUND", async () => {
    const response = await server.api("/api/gen/tasks");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: "Not Found", code: "NOT_FOUND" });
  });
});
