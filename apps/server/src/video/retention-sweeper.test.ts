import { describe, expect, it } from "vitest";
import { createLogger } from "../logging/logger.js";
import { createRetentionSweeper } from "./retention-sweeper.js";
import type { VideoSweep } from "./video-file-storage.js";

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** A storage whose sweeps finish when the test says so. */
function controllableStorage() {
  const pending: ((result: VideoSweep) => void)[] = [];
  return {
    retentionMs: 1000,
    sweeps: () => pending.length,
    finish: (result: VideoSweep = { taskIds: [], partials: 0 }) => pending.shift()?.(result),
    sweep: () => new Promise<VideoSweep>((resolve) => pending.push(resolve)),
  };
}

describe("retention sweeper", () => {
  it("sweeps again only once the interval has passed since the last sweep started, one at a time", async () => {
    const storage = controllableStorage();
    let now = 0;
    const { logger } = recordingLogger();
    const sweeper = createRetentionSweeper(storage, { intervalMs: 600_000, logger, now: () => now });

    const startup = sweeper.sweepNow();
    storage.finish();
    await startup;
    now = 599_999;
    sweeper.sweepIfDue();
    expect(storage.sweeps()).toBe(0);

    now = 600_000;
    sweeper.sweepIfDue();
    sweeper.sweepIfDue();
    expect(storage.sweeps()).toBe(1);
    // Long sweep: the interval passes again while it runs, and still only one runs.
    now = 1_300_000;
    sweeper.sweepIfDue();
    expect(storage.sweeps()).toBe(1);

    const stopped = sweeper.stop();
    storage.finish();
    await stopped;
    now = 10_000_000;
    sweeper.sweepIfDue();
    expect(storage.sweeps()).toBe(0);
  });

  it("logs what a sweep deleted, nothing when it deleted nothing, and a failure without throwing", async () => {
    const { logger, lines } = recordingLogger();
    const results: (VideoSweep | Error)[] = [
      { taskIds: [], partials: 0 },
      { taskIds: ["a", "b"], partials: 1 },
      new Error("disk gone"),
    ];
    const storage = {
      retentionMs: 5000,
      sweep: async () => {
        const next = results.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
    };
    const sweeper = createRetentionSweeper(storage, { intervalMs: 0, logger });
    await sweeper.sweepNow();
    await sweeper.sweepNow();
    await sweeper.sweepNow();
    logger.flush();
    expect(lines).toEqual([
      expect.objectContaining({
        level: "info",
        msg: "video retention sweep deleted videos",
        deleted: 2,
        taskIds: ["a", "b"],
        partials: 1,
        retentionMs: 5000,
      }),
      expect.objectContaining({ level: "error", msg: "video retention sweep failed" }),
    ]);
  });
});
