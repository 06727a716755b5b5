import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

describe("createLogger", () => {
  it("stamps each line with the ISO time it was written, and redacts named secrets", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) });
    const before = Date.now();
    logger.info({ apiKey: "gen_sk_secret" }, "first");
    await new Promise((resolve) => setTimeout(resolve, 5));
    logger.info("second");
    const after = Date.now();
    const times = lines.map((line) => Date.parse(line.time as string));
    expect(lines.map((line) => line.time)).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    ]);
    expect(times[0]).toBeGreaterThanOrEqual(before);
    expect(times[1]).toBeGreaterThan(times[0]!);
    expect(times[1]).toBeLessThanOrEqual(after);
    expect(lines[0]).toMatchObject({ level: "info", msg: "first", apiKey: "[redacted]" });
  });
});
