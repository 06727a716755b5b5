import { CreateErrorBodySchema, ErrorBodySchema } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { STARTING_UP_RETRY_AFTER_SECONDS, startingUpResponse } from "./starting-up.js";

describe("the answer while the server starts", () => {
  it("is the contract's 503 body with Retry-After, a request id and nosniff", async () => {
    const response = startingUpResponse(new Request("http://127.0.0.1:8787/api/gen/status/x"));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe(String(STARTING_UP_RETRY_AFTER_SECONDS));
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toMatch(/^req_/);
    const body = ErrorBodySchema.parse(await response.json());
    expect(body).toEqual({
      error: "Service Unavailable",
      code: "SERVICE_UNAVAILABLE",
      message: expect.any(String),
      request_id: requestId,
    });
  });

  it("adds success: false on the create endpoint and keeps a plain client request id", async () => {
    const response = startingUpResponse(
      new Request("http://127.0.0.1:8787/api/gen/generate", {
        method: "POST",
        headers: { "x-request-id": "trace-7" },
      }),
    );
    const body = CreateErrorBodySchema.parse(await response.json());
    expect(body).toMatchObject({ success: false, code: "SERVICE_UNAVAILABLE", request_id: "trace-7" });
    expect(response.headers.get("x-request-id")).toBe("trace-7");
  });

  it("makes its own request id when the client's is not plain", async () => {
    const response = startingUpResponse(
      new Request("http://127.0.0.1:8787/healthz", { headers: { "x-request-id": "not plain, has spaces" } }),
    );
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  });
});
