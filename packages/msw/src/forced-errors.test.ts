import { describe, expect, it } from "vitest";
import { ForcedErrors, routeOf } from "./forced-errors.js";

describe("ForcedErrors", () => {
  it("classifies routes", () => {
    expect(routeOf("POST", "/api/gen/generate")).toBe("create");
    expect(routeOf("GET", "/api/gen/status/abc")).toBe("status");
    expect(routeOf("GET", "/api/gen/account")).toBe("any");
    expect(routeOf("GET", "/videos/abc.mp4")).toBeUndefined();
  });

  it("uses errors up in order, each for as many matching requests as asked", () => {
    const errors = new ForcedErrors();
    errors.add({ status: 500, times: 2, route: "status" });
    errors.add({ status: 503 });
    expect(errors.remaining).toBe(3);
    expect(errors.take("POST", "/api/gen/generate")?.status).toBe(503);
    expect(errors.take("POST", "/api/gen/generate")).toBeUndefined();
    expect(errors.take("GET", "/api/gen/status/x")?.status).toBe(500);
    expect(errors.take("GET", "/api/gen/status/x")?.status).toBe(500);
    expect(errors.take("GET", "/api/gen/status/x")).toBeUndefined();
  });

  it("builds the service's 429 for reads, with its headers", async () => {
    const errors = new ForcedErrors();
    errors.add({ status: 429, retryAfter: "1500ms" });
    const response = errors.take("GET", "/api/gen/status/x")!;
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "retry-after": "2",
      "ratelimit-policy": '"read";q=1200;w=60',
      ratelimit: '"read";r=0;t=2',
    });
    expect(await response.json()).toEqual({
      error: "Too Many Requests",
      code: "RATE_LIMITED",
      message: "Rate limit of 1200 reads per minute exceeded; retry in 2 s.",
    });
  });

  it("refuses a nonsensical count", () => {
    expect(() => new ForcedErrors().add({ status: 500, times: 0 })).toThrow(RangeError);
  });
});
