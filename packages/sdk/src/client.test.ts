import { afterEach, describe, expect, it, vi } from "vitest";
import { completed, created, json, scriptedFetch, taskId } from "../test/support/fetch.js";
import { type GenerationRequestInput, GenVideo, GenVideoError } from "./index.js";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe("new GenVideo", () => {
  it("reads the key and the base URL from the environment", async () => {
    vi.stubEnv("GENVIDEO_API_KEY", "gen_sk_from_env");
    vi.stubEnv("GENVIDEO_BASE_URL", "http://env.test/base");
    const { fetch, sent } = scriptedFetch(json(completed));
    await new GenVideo({ fetch }).getStatus(taskId);
    expect(sent[0]!.url).toBe(`http://env.test/base/api/gen/status/${taskId}`);
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer gen_sk_from_env");
  });

  it("prefers options to the environment", async () => {
    vi.stubEnv("GENVIDEO_API_KEY", "gen_sk_from_env");
    vi.stubEnv("GENVIDEO_BASE_URL", "http://env.test");
    const { fetch, sent } = scriptedFetch(json(completed));
    const client = new GenVideo({
      apiKey: "gen_sk_option",
      baseUrl: new URL("http://option.test/v1/"),
      fetch,
    });
    await client.getStatus(taskId);
    expect(sent[0]!.url).toBe(`http://option.test/v1/api/gen/status/${taskId}`);
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer gen_sk_option");
  });

  it("sends the client's headers on every call, its own authorization winning", async () => {
    const { fetch, sent } = scriptedFetch(json(completed));
    const headers = new Headers({ "X-Team": "video", authorization: "Basic x", "x-dropped": "undefined" });
    await new GenVideo({ apiKey: "gen_sk_x", baseUrl: "http://x.test", fetch, headers }).getStatus(taskId);
    expect(Object.fromEntries(sent[0]!.headers)).toEqual({
      accept: "application/json",
      authorization: "Bearer gen_sk_x",
      "x-team": "video",
    });
  });

  it("lets a call's idempotency key win over one in the client's headers", async () => {
    const { fetch, sent } = scriptedFetch(json(created));
    const headers = { "Idempotency-Key": "from-client", "Content-Type": "application/json; charset=utf-8" };
    const client = new GenVideo({ apiKey: "gen_sk_x", baseUrl: "http://x.test", fetch, headers });
    await client.createTask({ prompt: "a fox" }, { idempotencyKey: "from-call" });
    expect(sent[0]!.headers.get("idempotency-key")).toBe("from-call");
    expect(sent[0]!.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  // The client resolves paths itself instead of through ky's `baseUrl`; this holds it to what
  // ky's resolution (`new URL(path, new Request(baseUrl).url)`) gives, on awkward bases and ids.
  it.each([
    ["http://x.test", taskId],
    ["http://x.test///", taskId],
    ["HTTP://X.test:80/v1", taskId],
    ["https://x.test/v1/", taskId],
    ["https://x.test/a/b?region=eu", taskId],
    ["https://x.test/a/b/#frag", taskId],
    ["http://x.test/v1/", ".."],
    ["http://x.test/v1/", "."],
    ["http://x.test/v1/", "a b/c?d#e%f"],
    ["http://x.test/v1/", "ünïcødé"],
  ])("resolves request paths against %s as ky's baseUrl does (id %s)", async (baseUrl, id) => {
    const { fetch, sent } = scriptedFetch(json(created), json({ ...completed, task_id: id.toLowerCase() }));
    const client = new GenVideo({ apiKey: "gen_sk_x", baseUrl, fetch });
    await client.createTask({ prompt: "a fox" });
    await client.getStatus(id);
    const base = new Request(String(baseUrl).replace(/\/*$/, "/")).url;
    expect(sent.map((request) => request.url)).toEqual([
      new URL("api/gen/generate", base).href,
      new URL(`api/gen/status/${encodeURIComponent(id)}`, base).href,
    ]);
  });

  it("refuses to start without a key or a base URL, naming the setting", () => {
    vi.stubEnv("GENVIDEO_API_KEY", "");
    vi.stubEnv("GENVIDEO_BASE_URL", "");
    expect(() => new GenVideo({ baseUrl: "http://x.test" })).toThrow(/GENVIDEO_API_KEY/);
    expect(() => new GenVideo({ apiKey: "gen_sk_x" })).toThrow(/GENVIDEO_BASE_URL/);
  });

  it("refuses to run in a browser unless dangerouslyAllowBrowser is set", () => {
    vi.stubGlobal("window", {});
    vi.stubGlobal("document", {});
    const options = { apiKey: "gen_sk_x", baseUrl: "http://x.test" };
    const error = (() => {
      try {
        new GenVideo(options);
      } catch (caught) {
        return caught;
      }
    })();
    expect(GenVideoError.isInstance(error) && error.message).toMatch(/browser/);
    expect(() => new GenVideo({ ...options, dangerouslyAllowBrowser: true })).not.toThrow();
  });

  it("calls a custom fetch as a plain function, as an unbound window.fetch requires", async () => {
    const { fetch: answer } = scriptedFetch(json(completed));
    function unboundFetch(this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
      return answer(input, init);
    }
    const client = new GenVideo({
      apiKey: "gen_sk_x",
      baseUrl: "http://x.test",
      fetch: unboundFetch as typeof fetch,
    });
    await expect(client.getStatus(taskId)).resolves.toEqual(completed);
  });

  it("adds the caller's headers to every request without letting them drop the key", async () => {
    const { fetch, sent } = scriptedFetch(json(completed));
    const client = new GenVideo({
      apiKey: "gen_sk_x",
      baseUrl: "http://x.test",
      fetch,
      headers: { "x-trace": "abc", authorization: "Bearer wrong" },
    });
    await client.getStatus(taskId);
    expect(sent[0]!.headers.get("x-trace")).toBe("abc");
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer gen_sk_x");
  });
});

describe("requests", () => {
  const client = (fetch: typeof globalThis.fetch) =>
    new GenVideo({ apiKey: "gen_sk_x", baseUrl: "http://x.test", fetch });

  it.each([
    ["text", { prompt: "a fox" }],
    [
      "frame-to-frame",
      {
        prompt: "morph",
        model_type: "gen-3-fast",
        start_frame: "data:image/jpeg;base64,AAAA",
        end_frame: "data:image/jpeg;base64,BBBB",
        aspect_ratio: "16:9",
      },
    ],
    [
      "reference images",
      {
        prompt: "a dog",
        reference_images: ["data:image/png;base64,AAAA"],
        callback_url: "https://example.com/h",
      },
    ],
  ] satisfies [string, GenerationRequestInput][])(
    "sends a %s request as JSON, with wire names untouched",
    async (_, request) => {
      const { fetch, sent } = scriptedFetch(json(created));
      await expect(client(fetch).createTask(request)).resolves.toEqual(created);
      expect(sent[0]).toMatchObject({ method: "POST", url: "http://x.test/api/gen/generate" });
      expect(JSON.parse(sent[0]!.body)).toEqual(request);
      expect(sent[0]!.headers.get("content-type")).toBe("application/json");
    },
  );

  it("returns the status as on the wire, extensions included", async () => {
    const status = {
      status: "processing",
      task_id: taskId,
      message: "Rendering",
      progress: 40,
      created_at: "2026-01-01T00:00:00Z",
    };
    const { fetch, sent } = scriptedFetch(json(status));
    await expect(client(fetch).getStatus(taskId)).resolves.toEqual(status);
    expect(sent[0]).toMatchObject({ method: "GET", url: `http://x.test/api/gen/status/${taskId}` });
  });

  it("escapes a task id so it cannot change the path", async () => {
    const { fetch, sent } = scriptedFetch(json({ ...completed, task_id: "../account" }));
    await client(fetch).getStatus("../account");
    expect(sent[0]!.url).toBe("http://x.test/api/gen/status/..%2Faccount");
  });

  it("generate creates once, then waits with the same signal", async () => {
    const { fetch, sent } = scriptedFetch(json(created), json(completed));
    const progress: string[] = [];
    const result = await client(fetch).generate(
      { prompt: "a fox" },
      { onProgress: (status) => progress.push(status.status) },
    );
    expect(result).toEqual(completed);
    expect(progress).toEqual(["completed"]);
    expect(sent.map((request) => request.method)).toEqual(["POST", "GET"]);
  });
});
