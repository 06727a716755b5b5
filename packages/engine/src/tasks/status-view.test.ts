import { TaskStatusResponseSchema } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { createHarness, fakeVideoStorage } from "../../test/support/harness.js";
import { InconsistentTaskError, taskStatusBody } from "./status-view.js";

describe("the status body of a completed task", () => {
  it("always carries the signed video URL, and matches the contract's schema", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox" });
    await h.advance(60_000);
    const body = await h.status(taskId);
    expect(body).toMatchObject({ status: "completed", video_url: expect.any(String) });
    expect(TaskStatusResponseSchema.safeParse(body).success).toBe(true);
  });

  it("refuses to describe a completed record without a video", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox" });
    await h.store.transaction((tx) => tx.transitionTask(taskId, ["queued"], { state: "completed" }));
    const task = (await h.store.transaction((tx) => tx.getTask(taskId)))!;
    expect(() => taskStatusBody(task, h.clock.now(), fakeVideoStorage)).toThrow(InconsistentTaskError);
  });

  it("answers 500 INTERNAL_ERROR for such a record, and logs why, instead of an invalid body", async () => {
    const logged: string[] = [];
    const h = await createHarness({
      logger: { error: (_message, details) => logged.push(String(details?.error)) },
    });
    const taskId = await h.create({ prompt: "A fox" });
    await h.store.transaction((tx) =>
      tx.transitionTask(taskId, ["queued"], { state: "completed", progress: 100 }),
    );
    const response = await h.call("GET", `/api/gen/status/${taskId}`);
    expect(response.status).toBe(500);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ code: "INTERNAL_ERROR", request_id: expect.any(String) });
    expect(body).not.toHaveProperty("video_url");
    expect(logged.join("\n")).toContain(`Task ${taskId} is completed but has no video`);
  });
});

describe("progress and updated_at", () => {
  it("moves updated_at exactly when progress moves, to the moment it reached its value", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox" });
    await h.advance(0);
    const started = await h.status(taskId);
    expect(started).toMatchObject({ status: "processing", progress: 0 });

    await h.advance(30_100); // 50.1 % of the default minute
    const half = await h.status(taskId);
    expect(half).toMatchObject({ progress: 50, updated_at: "2026-01-01T00:00:30.000Z" });
    await h.advance(200); // still 50 %
    expect(await h.status(taskId)).toMatchObject({ progress: 50, updated_at: half.updated_at });
    await h.advance(500); // 51.3 %
    expect(await h.status(taskId)).toMatchObject({ progress: 51, updated_at: "2026-01-01T00:00:30.600Z" });
  });

  it.each([
    ["a [[timeout]] task that crept towards its deadline", "A fox [[timeout]]", 10 * 60_000, "TIMEOUT"],
    ["a task that failed mid-way", "A fox [[fail:GENERATION_FAILED]]", 60_000, "GENERATION_FAILED"],
  ])("reports progress 0 for %s, never 99", async (_, prompt, wait, code) => {
    const h = await createHarness();
    const taskId = await h.create({ prompt });
    await h.advance(0);
    await h.advance(wait - 1_000);
    expect(((await h.status(taskId)) as { progress: number }).progress).toBeGreaterThan(90);
    await h.advance(1_000);
    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: code, progress: 0 });
  });
});
