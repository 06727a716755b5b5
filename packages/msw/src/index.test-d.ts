import type { FailureCode } from "@genvideo/schema";
import type { HttpHandler } from "msw";
import { describe, expectTypeOf, it } from "vitest";
import { createGenVideoMock, type MockTask, type RecordedRequest, type RecordedWebhook } from "./index.js";

describe("the public types", () => {
  const mock = createGenVideoMock();

  it("hands msw plain HttpHandlers", () => {
    expectTypeOf(mock.handlers).toEqualTypeOf<HttpHandler[]>();
  });

  it("takes only the service's failure codes", () => {
    expectTypeOf(mock.tasks.fail).parameter(1).toEqualTypeOf<FailureCode | undefined>();
    // @ts-expect-error not a failure code of the service
    mock.tasks.next({ fail: "OUT_OF_MEMORY" });
    expectTypeOf(mock.tasks.complete).returns.resolves.toEqualTypeOf<MockTask>();
  });

  it("keeps records read-only and typed", () => {
    expectTypeOf(mock.requests).toEqualTypeOf<readonly RecordedRequest[]>();
    expectTypeOf(mock.webhooks.deliveries).toEqualTypeOf<readonly RecordedWebhook[]>();
    expectTypeOf<RecordedWebhook["payload"]["video_url"]>().toEqualTypeOf<string | null>();
  });

  it("accepts durations as strings or milliseconds", () => {
    expectTypeOf(mock.clock.advance).parameter(0).toEqualTypeOf<string | number>();
    // @ts-expect-error forced errors are 429, 500, 503 or a network failure
    mock.errors.next({ status: 404 });
  });
});
