import { describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../test/support/harness.js";

const GENERATION_MS = 60_000;

async function task(h: Harness, taskId: string) {
  return (await h.store.transaction((tx) => tx.getTask(taskId)))!;
}

describe("engine.presetTask", () => {
  it("gives a queued task its video, so it completes at its generation time without a render", async () => {
    const h = await createHarness({ generationMs: GENERATION_MS });
    const taskId = await h.create({ prompt: "A fox" });
    expect(await h.engine.presetTask(taskId, { videoKey: "videos/fixture.mp4" })).toBe(true);
    await h.advance(GENERATION_MS);
    expect(await task(h, taskId)).toMatchObject({ state: "completed", videoKey: "videos/fixture.mp4" });
    expect(h.renderer.jobs).toEqual([]);
  });

  it("sets a processing task's scenario, and its generation time follows it from its creation", async () => {
    const h = await createHarness({ generationMs: GENERATION_MS });
    const taskId = await h.create({ prompt: "A fox" });
    await h.advance(1_000);
    expect((await task(h, taskId)).state).toBe("processing");
    await h.engine.presetTask(taskId, { scenario: { delayMs: 5 * GENERATION_MS } });
    const preset = await task(h, taskId);
    expect(preset).toMatchObject({
      scenario: { delayMs: 5 * GENERATION_MS },
      finishAt: preset.createdAt + 5 * GENERATION_MS,
    });
    await h.advance(GENERATION_MS);
    expect((await task(h, taskId)).state).toBe("processing");
    await h.advance(4 * GENERATION_MS);
    expect((await task(h, taskId)).state).toBe("completed");
  });

  it("makes a task fail the way its scenario says", async () => {
    const h = await createHarness({ generationMs: GENERATION_MS });
    const taskId = await h.create({ prompt: "A fox" });
    await h.engine.presetTask(taskId, { scenario: { fail: "GENERATION_FAILED" } });
    await h.advance(GENERATION_MS);
    expect(await task(h, taskId)).toMatchObject({ state: "failed", failureCode: "GENERATION_FAILED" });
  });

  it("leaves an ended task and an unknown id alone, and says so", async () => {
    const h = await createHarness({ generationMs: GENERATION_MS });
    const taskId = await h.create({ prompt: "A fox" });
    await h.advance(GENERATION_MS);
    const ended = await task(h, taskId);
    expect(ended.state).toBe("completed");
    expect(await h.engine.presetTask(taskId, { scenario: { timeout: true }, videoKey: "other" })).toBe(false);
    expect(await task(h, taskId)).toEqual(ended);
    expect(await h.engine.presetTask("no-such-task", { videoKey: "other" })).toBe(false);
  });
});
