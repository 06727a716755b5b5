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
    await expect(taskStatusBody(task, h.clock.now(), fakeVideoStorage)).rejects.toThrow(
      InconsistentTaskError,
    );
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
