import { describe, expect, it } from "vitest";
import { createHarness } from "./testing/test-harness.js";

describe("task lifecycle", () => {
  it("goes queued → processing → completed as service time passes", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "A red fox in the snow" });
    expect(await h.status(taskId)).toMatchObject({ status: "queued", task_id: taskId, progress: 0 });
    expect(await h.status(taskId)).not.toHaveProperty("video_url");
    await h.advance(0);
    const processing = await h.status(taskId);
    expect(processing).toMatchObject({ status: "processing" });
    expect(processing).not.toHaveProperty("video_url");
    await h.advance(30_000);
    expect(await h.status(taskId)).toMatchObject({ status: "processing", progress: 50 });
    await h.advance(30_000);
    expect(await h.status(taskId)).toEqual({
      status: "completed",
      task_id: taskId,
      message: "Video generated successfully",
      video_url: expect.stringContaining(`/videos/${taskId}.mp4?expires=`),
      progress: 100,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:01:00.000Z",
    });
  });
});
