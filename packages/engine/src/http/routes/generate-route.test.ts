import { REQUEST_BODY_MAX_VALUES, VALIDATION_ISSUES_MAX_COUNT } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { createHarness } from "../../../test/support/harness.js";
import type { Store } from "../../ports.js";

/** A real 1×1 PNG. */
const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("POST /api/gen/generate: accepted forms", () => {
  it.each([
    ["text", { prompt: "A red fox in the snow" }],
    ["text with every option", { prompt: "Fox", model_type: "gen-3", aspect_ratio: "9:16" }],
    [
      "frame-to-frame",
      { prompt: "Morph", model_type: "gen-3-fast", start_frame: PNG, end_frame: PNG, aspect_ratio: "16:9" },
    ],
    ["reference images", { prompt: "Cat", model_type: "gen-3-fast", reference_images: [PNG, PNG, PNG, PNG] }],
    ["any form with a callback", { prompt: "Dog", callback_url: "https://example.com/hooks/genvideo" }],
  ])("creates a task from a %s request", async (_, body) => {
    const h = await createHarness();
    const response = await h.call("POST", "/api/gen/generate", { body });
    expect(response.status).toBe(200);
    const json = (await response.json()) as { task_id: string };
    expect(json).toEqual({ success: true, message: "Task created", task_id: expect.stringMatching(UUID_V4) });
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("accepts application/json with parameters", async () => {
    const h = await createHarness();
    const response = await h.call("POST", "/api/gen/generate", {
      rawBody: JSON.stringify({ prompt: "Fox" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(response.status).toBe(200);
  });

  it("renders the request it was given, defaults applied", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "  Waves  ", start_frame: PNG, end_frame: PNG });
    await h.advance(0);
    expect(h.renderer.jobs).toEqual([
      {
        taskId,
        aspectRatio: "16:9",
        request: {
          prompt: "Waves",
          model_type: "gen-3-fast",
          aspect_ratio: "16:9",
          start_frame: PNG,
          end_frame: PNG,
        },
      },
    ]);
  });
});

describe("POST /api/gen/generate: refusals", () => {
  const create = { success: false };

  it("refuses bad JSON with 400 INVALID_REQUEST", async () => {
    const h = await createHarness();
    const response = await h.call("POST", "/api/gen/generate", {
      rawBody: "{prompt:",
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      ...create,
      error: "Bad Request",
      code: "INVALID_REQUEST",
      message: expect.stringContaining("not valid JSON"),
    });
  });

  it("names an unknown field and a bad combination in issues", async () => {
    const h = await createHarness();
    const response = await h.call("POST", "/api/gen/generate", {
      body: { prompt: "Fox", colour: "red", start_frame: PNG, reference_images: [PNG] },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { issues: { path: string }[] };
    expect(body).toMatchObject({ ...create, error: "Bad Request", code: "INVALID_REQUEST" });
    expect(body.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining(["colour", "reference_images", "end_frame"]),
    );
  });

  it.each([
    ["a missing prompt", {}, "prompt"],
    ["an unknown model", { prompt: "Fox", model_type: "gen-9" }, "model_type"],
    ["a non-object body", [1, 2], ""],
  ])("refuses %s", async (_, body, path) => {
    const h = await createHarness();
    const response = await h.call("POST", "/api/gen/generate", { body });
    expect(response.status).toBe(400);
    const json = (await response.json()) as { issues: { path: string }[] };
    expect(json.issues[0]?.path).toBe(path);
  });

  it("lists the first issues only, and counts them all in the message", async () => {
    const h = await createHarness();
    const body: Record<string, unknown> = { prompt: "Fox" };
    for (let index = 0; index < 30; index++) body[`colour_${index}`] = "red";
    const response = await h.call("POST", "/api/gen/generate", { body });
    expect(response.status).toBe(400);
    const json = (await response.json()) as { message: string; issues: unknown[] };
    expect(json.issues).toHaveLength(VALIDATION_ISSUES_MAX_COUNT);
    expect(json.message).toMatch(
      /^Unknown field "colour_0".*\(and 29 more issues; issues lists the first 20\)$/,
    );
    const two = await h.call("POST", "/api/gen/generate", {
      body: { prompt: "Fox", colour: "red", size: 1 },
    });
    expect(((await two.json()) as { message: string }).message).toMatch(/\(and 1 more issue\)$/);
  });

  it("refuses a body of too many values before parsing it, with 400 INVALID_REQUEST", async () => {
    const h = await createHarness();
    const values = `{"prompt":"Fox","reference_images":[${"0,".repeat(REQUEST_BODY_MAX_VALUES)}0]}`;
    const response = await h.call("POST", "/api/gen/generate", {
      rawBody: values,
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      ...create,
      error: "Bad Request",
      code: "INVALID_REQUEST",
      message: `The request body holds more than ${REQUEST_BODY_MAX_VALUES} values in arrays and objects; a create request has a few fields and at most 4 reference images.`,
    });
  });

  it("refuses a callback that is not https with 400 INVALID_CALLBACK_URL", async () => {
    const h = await createHarness();
    const response = await h.call("POST", "/api/gen/generate", {
      body: { prompt: "Fox", callback_url: "http://example.com/hook" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ ...create, code: "INVALID_CALLBACK_URL" });
  });

  it("asks the embedder's callback check, which may refuse private targets", async () => {
    const h = await createHarness({
      validateCallbackUrl: async (url) =>
        url.includes("10.0.0.1")
          ? { ok: false, reason: "callback_url resolves to a private address" }
          : { ok: true },
    });
    const response = await h.call("POST", "/api/gen/generate", {
      body: { prompt: "Fox", callback_url: "https://10.0.0.1/hook" },
    });
    expect(await response.json()).toMatchObject({
      code: "INVALID_CALLBACK_URL",
      message: expect.stringMatching(/^callback_url resolves to a private address; for local development/),
    });
  });

  it("refuses a POST that is not application/json with 415", async () => {
    const h = await createHarness();
    const json = '{"prompt":"Fox"}';
    const cases: [Record<string, string>, BodyInit][] = [
      // Bytes, not a string: a string body would get text/plain from the Request constructor.
      [{}, new TextEncoder().encode(json)],
      [{ "content-type": "text/plain" }, json],
      [{ "content-type": "application/jsonx" }, json],
    ];
    for (const [headers, rawBody] of cases) {
      const response = await h.call("POST", "/api/gen/generate", { rawBody, headers });
      expect(response.status).toBe(415);
      expect(await response.json()).toMatchObject({
        ...create,
        error: "Unsupported Media Type",
        code: "UNSUPPORTED_MEDIA_TYPE",
      });
    }
  });

  it("refuses a body over the limit with 413, by header or by counting", async () => {
    const h = await createHarness({ maxBodyBytes: 100 });
    const big = JSON.stringify({ prompt: "x".repeat(200) });
    const declared = await h.call("POST", "/api/gen/generate", {
      rawBody: big,
      headers: { "content-type": "application/json", "content-length": String(big.length) },
    });
    expect(declared.status).toBe(413);
    // A Content-Length that understates the body does not get it past the limit.
    const understated = await h.call("POST", "/api/gen/generate", {
      rawBody: big,
      headers: { "content-type": "application/json", "content-length": "20" },
    });
    expect(understated.status).toBe(413);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await h.engine.app.fetch(
      new Request("http://localhost/api/gen/generate", {
        method: "POST",
        headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({
      ...create,
      error: "Content Too Large",
      code: "PAYLOAD_TOO_LARGE",
    });
  });

  it("refuses with 402 when credits are short, creating nothing", async () => {
    const h = await createHarness();
    const { account } = await h.engine.admin.createAccount("poor", 1);
    const { key } = await h.engine.admin.createApiKey(account.id);
    const response = await h.call("POST", "/api/gen/generate", {
      key,
      body: { prompt: "Fox", model_type: "gen-3" },
    });
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({
      ...create,
      error: "Payment Required",
      code: "INSUFFICIENT_CREDITS",
      message: "This task costs 2 credits (gen-3); the account has 1.",
    });
    expect(await h.store.transaction((tx) => tx.countTasks(account.id))).toBe(0);
    expect((await h.engine.admin.getAccount(account.id))?.credits).toBe(1);
    expect((await h.call("POST", "/api/gen/generate", { key, body: { prompt: "Fox" } })).status).toBe(200);
    expect((await h.engine.admin.getAccount(account.id))?.credits).toBe(0);
  });

  it("answers an unexpected fault with 500 INTERNAL_ERROR carrying the request id, never a stack", async () => {
    const h = await createHarness();
    const errors: unknown[] = [];
    const broken: Store = {
      transaction: (work) =>
        h.store.transaction((tx) =>
          work({
            ...tx,
            insertChargedTask: async () => {
              throw new Error("disk on fire");
            },
          }),
        ),
      close: () => h.store.close(),
    };
    const { createEngine } = await import("../../engine.js");
    const { fakeVideoStorage } = await import("../../../test/support/harness.js");
    const engine = createEngine({
      store: broken,
      clock: h.clock,
      renderer: h.renderer,
      videoStorage: fakeVideoStorage,
      sender: h.sender,
      config: { logger: { error: (message, details) => errors.push({ message, details }) } },
    });
    const response = await engine.app.fetch(
      new Request("http://localhost/api/gen/generate", {
        method: "POST",
        headers: {
          authorization: `Bearer ${h.apiKey}`,
          "content-type": "application/json",
          "x-request-id": "trace-42",
        },
        body: JSON.stringify({ prompt: "Fox" }),
      }),
    );
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({
      success: false,
      error: "Internal Server Error",
      code: "INTERNAL_ERROR",
      message: expect.stringContaining("trace-42"),
      request_id: "trace-42",
    });
    expect(JSON.stringify(body)).not.toContain("disk on fire");
    expect(response.headers.get("x-request-id")).toBe("trace-42");
    expect(errors).toHaveLength(1);
  });
});

describe("GET /api/gen/status/:task_id", () => {
  it("refuses a task id that is not a UUID with 400", async () => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/status/12345");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "Bad Request",
      code: "INVALID_REQUEST",
      message: expect.any(String),
      issues: [{ path: "task_id", message: "must be a UUID" }],
    });
  });

  it("answers 404 for an unknown task and for another account's task alike", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "Fox" });
    const { account } = await h.engine.admin.createAccount("other", 10);
    const { key } = await h.engine.admin.createApiKey(account.id);
    const foreign = await h.call("GET", `/api/gen/status/${taskId}`, { key });
    const unknown = await h.call("GET", `/api/gen/status/${crypto.randomUUID()}`, { key });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await foreign.json()).toEqual(await unknown.json());
    expect((await h.call("GET", `/api/gen/status/${taskId.toUpperCase()}`)).status).toBe(200);
  });
});

describe("GET /api/gen/account", () => {
  it("returns the caller's account and balance", async () => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/account");
    expect(await response.json()).toEqual({ account_id: h.accountId, name: "default", credits: 1000 });
  });
});

describe("POST /api/gen/generate: a client that gives up mid-body", () => {
  it("is answered 499, logged as a client abort, never as an error, and creates nothing", async () => {
    const errors: string[] = [];
    const statuses: { status: number; clientAborted?: true }[] = [];
    const h = await createHarness({
      logger: {
        error: (message) => errors.push(message),
        request: ({ status, clientAborted }) => statuses.push({ status, clientAborted }),
      },
    });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"prompt":"ha'));
        controller.error(new Error("aborted"));
      },
    });
    const response = await h.engine.app.fetch(
      new Request("http://localhost/api/gen/generate", {
        method: "POST",
        headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit),
    );
    expect(response.status).toBe(499);
    expect(statuses).toEqual([{ status: 499, clientAborted: true }]);
    expect(errors).toEqual([]);
    expect(await h.engine.admin.listAccounts()).toMatchObject([{ credits: 1000 }]);
  });
});
