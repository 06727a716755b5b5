import { describe, expect, it } from "vitest";
import { BURST_TASKS, renderCapacityWarning } from "./render-capacity.js";

describe("renderCapacityWarning", () => {
  it("stays quiet while the default slots finish a burst before the deadline", () => {
    for (const scale of [1, 10, 60, 120]) expect(renderCapacityWarning(scale, 2), `${scale}`).toBeUndefined();
  });

  it("names the time scale, the renders per second and the fixture renderer when they cannot", () => {
    const warning = renderCapacityWarning(600, 2);
    expect(warning).toMatchObject({
      timeScale: 600,
      rendersPerSecond: 2,
      burstTasks: BURST_TASKS,
      deadlineSeconds: 1,
      burstSeconds: 5,
    });
    expect(warning?.message).toContain("GENVIDEO_TIME_SCALE=600");
    expect(warning?.message).toContain("2 renders per second");
    expect(warning?.message).toContain("GENVIDEO_RENDERER=fixture");
  });

  it("counts the slots: more of them keep up with a faster clock", () => {
    expect(renderCapacityWarning(600, 16)).toBeUndefined();
    expect(renderCapacityWarning(600, 8)).toBeDefined();
  });
});
