import { afterEach, describe, expect, it, vi } from "vitest";
import { type GenerationRequestInput, GenVideo, GenVideoError } from "./index.js";
import { completed, created, json, scriptedFetch, taskId } from "./test-fetch.js";

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
    const { fetch, sent } = scriptedFetch(json(completed));
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
