import { type RunningServer, startServer, TEST_API_KEY } from "@genvideo/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runExample } from "./programs.ts";

const program = "create-and-wait/create-and-wait.ts";
let server: RunningServer;

// Service time 60 times faster, as the README runs it: the minute a render takes passes in a second
// and the 10-minute deadline in ten, room enough for a real render on a busy machine.
beforeAll(async () => {
  server = await startServer({ env: { GENVIDEO_TIME_SCALE: "60" } });
});
afterAll(() => server?.stop());

describe("examples/create-and-wait", () => {
  it("creates a task, prints its progress and ends with the video's URL", async () => {
    const result = await runExample(program, ["a paper boat on a rainy street"], {
      GENVIDEO_API_KEY: TEST_API_KEY,
      GENVIDEO_BASE_URL: server.url,
    });

    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const videoUrl = /^completed: (\S+)$/m.exec(result.stdout)?.[1];
    expect(result.stdout).toMatch(/^created task [0-9a-f-]{36}$/m);
    expect(videoUrl).toBeDefined();
    const video = await fetch(videoUrl ?? "");
    expect(video.status).toBe(200);
    expect(video.headers.get("content-type")).toBe("video/mp4");
  });

  it("exits 1 with the failure code when the task fails", async () => {
    const result = await runExample(program, ["[[fail:UNSAFE_CONTENT]] anything"], {
      GENVIDEO_API_KEY: TEST_API_KEY,
      GENVIDEO_BASE_URL: server.url,
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe("failed: UNSAFE_CONTENT\n");
  });

  it("says how to set the key when there is none, and creates nothing", async () => {
    const result = await runExample(program, [], { GENVIDEO_BASE_URL: server.url });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("export GENVIDEO_API_KEY=gen_sk_...");
  });

  it("says the key was refused, without a stack trace, when it is wrong", async () => {
    const result = await runExample(program, [], {
      GENVIDEO_API_KEY: "gen_sk_not-the-key-0000000000000000000000",
      GENVIDEO_BASE_URL: server.url,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("refused the key in GENVIDEO_API_KEY (401)");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("says the service cannot be reached, without a stack trace, on a wrong port", async () => {
    const result = await runExample(program, [], {
      GENVIDEO_API_KEY: TEST_API_KEY,
      GENVIDEO_BASE_URL: "http://127.0.0.1:9",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Could not reach http:\/\/127\.0\.0\.1:9\b.*Is the server running\?$/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
