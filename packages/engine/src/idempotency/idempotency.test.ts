import { describe, expect, it } from "vitest";
import { createHarness } from "../../test/support/harness.js";

const post = (body: unknown, key: string) => ({ body, headers: { "idempotency-key": key } });

describe("Idempotency-Key on create", () => {
  it("replays the first response for the same key and body, creating one task", async () => {
    const h = await createHarness();
    const first = await h.call(
      "POST",
      "/api/gen/generate",
      post({ prompt: "Fox", aspect_ratio: "1:1" }, "order-1"),
    );
    // Same body, other key order and spacing: still the same request.
    const again = await h.call("POST", "/api/gen/generate", {
      rawBody: '{ "aspect_ratio": "1:1",   "prompt": "Fox" }',
      headers: { "idempotency-key": "order-1", "content-type": "application/json" },
    });
    expect(again.status).toBe(first.status);
    expect(await again.text()).toBe(await first.text());
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await h.store.transaction((tx) => tx.countTasks())).toBe(1);
    expect((await h.engine.admin.getAccount(h.accountId))?.credits).toBe(999);
  });

  it("answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body", async () => {
    const h = await createHarness();
    await h.call("POST", "/api/gen/generate", post({ prompt: "Fox" }, "order-2"));
    const response = await h.call("POST", "/api/gen/generate", post({ prompt: "Cat" }, "order-2"));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      success: false,
      error: "Unprocessable Content",
      code: "IDEMPOTENCY_KEY_REUSED",
    });
  });

  it("answers 409 IDEMPOTENCY_IN_PROGRESS while the first request still runs", async () => {
    let release: (value: { ok: true }) => void = () => {};
    const h = await createHarness({
      validateCallbackUrl: () => new Promise((resolve) => (release = resolve)),
    });
    const body = { prompt: "Fox", callback_url: "https://example.com/hook" };
    const first = h.call("POST", "/api/gen/generate", post(body, "order-3"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const concurrent = await h.call("POST", "/api/gen/generate", post(body, "order-3"));
    expect(concurrent.status).toBe(409);
    expect(concurrent.headers.get("retry-after")).toBe("1");
    expect(await concurrent.json()).toMatchObject({
      success: false,
      error: "Conflict",
      code: "IDEMPOTENCY_IN_PROGRESS",
    });
    release({ ok: true });
    expect((await first).status).toBe(200);
  });

  it("keys are per account", async () => {
    const h = await createHarness();
    const { account } = await h.engine.admin.createAccount("other", 10);
    const { key } = await h.engine.admin.createApiKey(account.id);
    await h.call("POST", "/api/gen/generate", post({ prompt: "Fox" }, "shared"));
    const other = await h.call("POST", "/api/gen/generate", { ...post({ prompt: "Cat" }, "shared"), key });
    expect(other.status).toBe(200);
  });

  it("does not keep refusals: after a 402 the same key works once credits arrive", async () => {
    const h = await createHarness();
    const { account } = await h.engine.admin.createAccount("poor", 0);
    const { key } = await h.engine.admin.createApiKey(account.id);
    const refused = await h.call("POST", "/api/gen/generate", {
      ...post({ prompt: "Fox" }, "retry-me"),
      key,
    });
    expect(refused.status).toBe(402);
    await h.engine.admin.creditAccount(account.id, 5);
    const accepted = await h.call("POST", "/api/gen/generate", {
      ...post({ prompt: "Fox" }, "retry-me"),
      key,
    });
    expect(accepted.status).toBe(200);
  });

  it("does not keep validation failures either", async () => {
    const h = await createHarness();
    expect((await h.call("POST", "/api/gen/generate", post({ prompt: "" }, "k"))).status).toBe(400);
    expect((await h.call("POST", "/api/gen/generate", post({ prompt: "Fox" }, "k"))).status).toBe(200);
  });

  it("forgets a key after 24 hours", async () => {
    const h = await createHarness();
    await h.call("POST", "/api/gen/generate", post({ prompt: "Fox" }, "daily"));
    h.clock.advance(24 * 60 * 60_000);
    const response = await h.call("POST", "/api/gen/generate", post({ prompt: "Cat" }, "daily"));
    expect(response.status).toBe(200);
    expect(await h.store.transaction((tx) => tx.countTasks())).toBe(2);
  });

  it("refuses a key longer than 255 characters", async () => {
    const h = await createHarness();
    const response = await h.call("POST", "/api/gen/generate", post({ prompt: "Fox" }, "k".repeat(256)));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "INVALID_REQUEST" });
    expect((await h.call("POST", "/api/gen/generate", post({ prompt: "Fox" }, "k".repeat(255)))).status).toBe(
      200,
    );
  });
});
