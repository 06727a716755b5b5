import type { TaskStatusResponse } from "@genvideo/schema";
import { describe, expectTypeOf, it } from "vitest";
import {
  createEngine,
  type Engine,
  type EngineConfigInput,
  type TaskStatusBody,
  type TickReport,
} from "./index.js";
import type { Store, WebhookAttemptOutcome } from "./ports.js";

describe("public types", () => {
  it("createEngine returns the app, the work driver and the admin service", () => {
    expectTypeOf(createEngine).returns.toEqualTypeOf<Engine>();
    expectTypeOf<Engine["app"]["fetch"]>().parameter(0).toEqualTypeOf<Request>();
    expectTypeOf<Engine["tick"]>().returns.resolves.toEqualTypeOf<TickReport>();
    expectTypeOf<Engine["runUntilIdle"]>().returns.resolves.toEqualTypeOf<TickReport>();
  });

  it("takes any subset of the config, nested policies included", () => {
    expectTypeOf<{ rateLimits: { enabled: false } }>().toExtend<EngineConfigInput>();
    expectTypeOf<{ webhooks: { maxAttempts: 3 } }>().toExtend<EngineConfigInput>();
  });

  it("appendLedger reports whether it applied", () => {
    type Transaction = Parameters<Parameters<Store["transaction"]>[0]>[0];
    expectTypeOf<ReturnType<Transaction["appendLedger"]>>().toEqualTypeOf<Promise<boolean>>();
  });

  it("a failed attempt may have no status code, a successful one always has", () => {
    expectTypeOf<Extract<WebhookAttemptOutcome, { ok: true }>["statusCode"]>().toEqualTypeOf<number>();
    expectTypeOf<Extract<WebhookAttemptOutcome, { ok: false }>["statusCode"]>().toEqualTypeOf<
      number | null
    >();
  });
});

describe("the status body", () => {
  it("is one of the contract's shapes, and a completed one always has a URL", () => {
    expectTypeOf<TaskStatusBody>().toExtend<TaskStatusResponse>();
    expectTypeOf<Extract<TaskStatusBody, { status: "completed" }>["video_url"]>().toEqualTypeOf<string>();
    expectTypeOf<Extract<TaskStatusBody, { status: "failed" }>["video_url"]>().toEqualTypeOf<null>();
  });
});
