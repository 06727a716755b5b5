import { ErrorBodySchema } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { createHarness } from "../../test/support/harness.js";

describe("a known path with the wrong method", () => {
  it.each([
    ["GET", "/api/gen/generate", "POST"],
    ["POST", "/api/gen/status/7d1f3a52-8f0e-4b43-9d59-2f1f6cf2f8b1", "GET, HEAD"],
    ["DELETE", "/api/gen/account", "GET, HEAD"],
    ["PUT", "/api/gen/tasks/7d1f3a52-8f0e-4b43-9d59-2f1f6cf2f8b1/webhooks/redeliver", "POST"],
  ])("%s %s answers 405 with Allow: %s in the error shape", async (method, path, allow) => {
    const h = await createHarness();
    const response = await h.call(method, path);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    const body = await response.json();
    expect(ErrorBodySchema.parse(body)).toEqual(body);
    expect(body).toMatchObject({ error: "Method Not Allowed", code: "METHOD_NOT_ALLOWED" });
    expect(body.message).toContain(`${method} ${path} is not allowed`);
  });

  it("still asks for authentication first, like every other request", async () => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/generate", { key: null });
    expect(response.status).toBe(401);
  });

  it("leaves an unknown path a 404", async () => {
    const h = await createHarness();
    const response = await h.call("GET", "/api/gen/nothing-here");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
    expect(response.headers.get("allow")).toBeNull();
  });
});
