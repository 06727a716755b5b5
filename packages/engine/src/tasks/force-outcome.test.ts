import { describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../test/support/harness.js";
import { ForceOutcomeError } from "./force-outcome.js";

const CALLBACK = "https://example.com/hooks/genvideo";

async function credits(h: Harness): Promise<number> {
  return (await h.engine.admin.getAccount(h.accountId))!.credits;
}

function payloads(h: Harness): unknown[] {
  return h.sender.deliveries.map((delivery) => JSON.parse(delivery.body));
}

describe("engine.forceOutcome", () => {
  it("completes a queued task now, rendering its video first, and notifies at the next tick", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox", callback_url: CALLBACK });
    const ended = await h.engine.forceOutcome(taskId, { complete: true });
    expect(ended).toMatchObject({ state: "completed", progress: 100, videoKey: `videos/${taskId}.mp4` });
    expect(h.renderer.jobs.map((job) => job.taskId)).toEqual([taskId]);
    const status = await h.status(taskId);
    expect(status).toMatchObject({ status: "completed", video_url: expect.stringContaining(taskId) });
    await h.advance(0);
    expect(payloads(h)).toEqual([
      {
        success: true,
        message: "Video generated successfully",
        task_id: taskId,
        video_url: status.video_url,
      },
    ]);
    expect(await credits(h)).toBe(999);
  });

  it("completes a processing task with the video it already has, without rendering again", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox" });
    await h.advance(1_000);
    await h.engine.forceOutcome(taskId, { complete: true });
    expect(h.renderer.jobs).toHaveLength(1);
    expect(await h.status(taskId)).toMatchObject({ status: "completed" });
  });

  it.each([
    [{ fail: "UNSAFE_CONTENT" } as const, "UNSAFE_CONTENT", 998],
    [{ fail: "GENERATION_FAILED" } as const, "GENERATION_FAILED", 1000],
    [{ timeout: true } as const, "TIMEOUT", 1000],
  ])("%o fails the task with %s, refunding as the service does", async (outcome, code, balance) => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox", model_type: "gen-3", callback_url: CALLBACK });
    await h.advance(30_000);
    const ended = await h.engine.forceOutcome(taskId, outcome);
    expect(ended).toMatchObject({ state: "failed", failureCode: code, progress: 0 });
    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: code, video_url: null });
    expect(await credits(h)).toBe(balance);
    await h.advance(0);
    expect(payloads(h)).toEqual([{ success: false, message: code, task_id: taskId, video_url: null }]);
    // Nothing the worker does later changes the outcome or refunds twice.
    await h.advance(20 * 60_000);
    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: code });
    expect(await credits(h)).toBe(balance);
    expect(h.sender.deliveries).toHaveLength(1);
  });

  it("aborts a render in flight, whose result then changes nothing", async () => {
    const h = await createHarness();
    h.renderer.mode = "hang";
    const taskId = await h.create({ prompt: "A fox" });
    await h.engine.tick();
    await h.engine.forceOutcome(taskId, { fail: "GENERATION_FAILED" });
    await h.engine.idle();
    expect(h.renderer.aborted).toEqual([taskId]);
    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: "GENERATION_FAILED" });
    expect(await credits(h)).toBe(1000);
  });

  it("refuses a task that has already ended, naming how, and an unknown task", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A fox" });
    await h.engine.forceOutcome(taskId, { fail: "UNSAFE_CONTENT" });
    const refusal = await h.engine.forceOutcome(taskId, { complete: true }).catch((error: unknown) => error);
    expect(ForceOutcomeError.isInstance(refusal)).toBe(true);
    expect(refusal).toMatchObject({
      reason: "already-ended",
      taskId,
      message: `Task ${taskId} has already failed (UNSAFE_CONTENT); only a queued or processing task can be ended`,
    });
    await expect(h.engine.forceOutcome(taskId, { timeout: true })).rejects.toThrow(/already failed/);
    expect(await credits(h)).toBe(999);
    const unknown = "00000000-0000-4000-8000-000000000000";
    await expect(h.engine.forceOutcome(unknown, { complete: true })).rejects.toMatchObject({
      reason: "not-found",
      message: `There is no task ${unknown}`,
    });
  });
});
