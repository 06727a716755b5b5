/**
 * Every request example of the served document, sent as it is to a real server with the renderer
 * `pnpm start` uses, makes a video: each task ends `completed`, its video downloads, and the server
 * logs no error. (Insecure callbacks are allowed only because this machine has no DNS for the
 * example's callback host; its webhook then fails, which is not an error of the service.)
 */

import type { RunningServer } from "@genvideo/server/testing";
import { eventually, startServer, TEST_API_KEY } from "@genvideo/server/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ServedDocument, startDocumentedServer } from "./support/served-document.js";

const cleanups: (() => unknown)[] = [];
let server: RunningServer;
let served: ServedDocument;

beforeAll(async () => {
  ({ server, served } = await startDocumentedServer(
    () =>
      startServer({
        env: {
          GENVIDEO_RENDERER: "synthetic",
          // Generation (60 s) takes 2 s; the 10-minute deadline 20 s, room for a busy machine.
          GENVIDEO_TIME_SCALE: "30",
          GENVIDEO_RATE_LIMITS: "off",
          GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
        },
      }),
    cleanups,
  ));
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it("makes a video of every request example, with no error logged", async () => {
  const examples = served.document.paths["/api/gen/generate"].post.requestBody.content["application/json"]
    .examples as Record<string, { value: unknown }>;
  expect(Object.keys(examples).sort()).toEqual(["frameToFrame", "referenceImages", "text"]);
  const tasks: Record<string, string> = {};
  for (const [name, { value }] of Object.entries(examples)) {
    const response = await fetch(`${server.url}/api/gen/generate`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify(value),
    });
    expect(response.status, `${name}: ${await response.clone().text()}`).toBe(200);
    tasks[name] = ((await response.json()) as { task_id: string }).task_id;
  }
  const outcomes: Record<string, { status: string; message: string; video_url?: string }> = {};
  await eventually(
    async () => {
      for (const [name, taskId] of Object.entries(tasks)) {
        const status = await server.api(`/api/gen/status/${taskId}`);
        outcomes[name] = (await status.json()) as (typeof outcomes)[string];
      }
      return Object.values(outcomes).every(
        (outcome) => outcome.status === "completed" || outcome.status === "failed",
      )
        ? true
        : undefined;
    },
    60_000,
    "every example's task to end",
  );
  expect(
    Object.fromEntries(
      Object.entries(outcomes).map(([name, outcome]) => [name, `${outcome.status} ${outcome.message}`]),
    ),
  ).toEqual({
    text: "completed Video generated successfully",
    frameToFrame: "completed Video generated successfully",
    referenceImages: "completed Video generated successfully",
  });
  for (const outcome of Object.values(outcomes)) {
    const video = await fetch(outcome.video_url as string);
    expect(video.headers.get("content-type")).toBe("video/mp4");
    expect(
      Buffer.from(await video.arrayBuffer())
        .subarray(4, 8)
        .toString("latin1"),
    ).toBe("ftyp");
  }
  expect(
    server.logRecords().filter((record) => record.level === "error" || record.level === "fatal"),
  ).toEqual([]);
});
