import type { RequestLogEntry } from "@genvideo/engine";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, requestLine } from "./logger.js";

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

describe("requestLine", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // Every field an entry can have, in the order the engine makes them: a field added to
  // RequestLogEntry stops this compiling until it is here, and then the byte comparison below fails
  // until the hand-made line writes it too.
  const everyField: Required<RequestLogEntry> = {
    requestId: "req_4",
    method: "POST",
    path: "/api/gen/generate",
    status: 499,
    durationMs: 3.5,
    accountId: "acc-2",
    clientAborted: true,
  };
  const entries: RequestLogEntry[] = [
    {
      requestId: "req_1",
      method: "GET",
      path: "/api/gen/status/x",
      status: 200,
      durationMs: 1.234,
      accountId: "acc-1",
    },
    {
      requestId: "req_2",
      method: "POST",
      path: "/api/gen/generate",
      status: 499,
      durationMs: 0,
      clientAborted: true,
    },
    {
      requestId: 'a"quote\\and\u0001control',
      method: "GET",
      path: "/d\u00e9j\u00e0/\u2028",
      status: 404,
      durationMs: 12.5,
    },
    { requestId: "req_3", method: "GET", path: "/healthz", status: 503, durationMs: 1000.001 },
    everyField,
  ];

  it("writes the bytes pino writes for the same entry", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2026, 10, 28, 12, 0, 0, 7));
    const lines: string[] = [];
    const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
    for (const entry of entries) {
      requestLine(logger)(entry);
      logger.info(entry, "request");
    }
    expect(lines).toHaveLength(2 * entries.length);
    for (let index = 0; index < lines.length; index += 2) expect(lines[index]).toBe(lines[index + 1]);
    expect(JSON.parse(lines[0]!)).toEqual({
      level: "info",
      time: "2026-11-28T12:00:00.007Z",
      service: "genvideo-server",
      ...entries[0],
      msg: "request",
    });
  });

  it("writes nothing below info, and goes through pino when lines carry trace ids", () => {
    const lines: string[] = [];
    const quiet = createLogger("warn", { write: (line: string) => void lines.push(line) });
    requestLine(quiet)(entries[0]!);
    expect(lines).toEqual([]);
    const traced = createLogger(
      "info",
      { write: (line: string) => void lines.push(line) },
      { traceIds: true },
    );
    const info = vi.spyOn(traced, "info");
    requestLine(traced)(entries[0]!);
    expect(info).toHaveBeenCalledWith(entries[0], "request");
    expect(JSON.parse(lines[0]!)).toMatchObject({ ...entries[0], msg: "request" });
  });
});
