/**
 * The server exactly as `pnpm start` runs it, synthetic renderer included:
 * one worker, so a second task visibly waits in the queue while the first
 * renders; the first ends with a real, downloadable H.264 MP4. Stopping the
 * server mid-render hands the second task back instead of losing it.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { expect, it } from "vitest";
import { createTask, getStatus, waitForTerminal } from "./support/api.js";
import { testImages } from "./support/images.js";
import { eventually } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

// 30x: generation (60 s) takes 2 real seconds, the deadline 20, room for a slow machine. The test
// stops the server itself; the stop after it finds it exited and checks that exit.
const server = useServer({
  env: { GENVIDEO_TIME_SCALE: "30", GENVIDEO_WORKERS: "1", GENVIDEO_RATE_LIMITS: "off" },
});

it("queues, processes and completes a task with a real MP4; shutdown hands back the queue", async () => {
  const images = await testImages();
  const first = await createTask(server, {
    prompt: "a red fox crossing a snowy field",
    reference_images: [images.red],
  });
  const second = await createTask(server, {
    prompt: "from red to blue",
    start_frame: images.red,
    end_frame: images.blue,
  });
  await eventually(async () => ((await getStatus(server, first)).status === "processing" ? true : undefined));
  expect(await getStatus(server, second)).toMatchObject({ status: "queued", task_id: second, progress: 0 });
  expect(await getStatus(server, second)).not.toHaveProperty("video_url");

  const done = await waitForTerminal(server, first, 25_000);
  expect(done).toMatchObject({ status: "completed", message: expect.any(String) });
  const video = await fetch(done.video_url as string);
  expect(video.status).toBe(200);
  expect(video.headers.get("content-type")).toBe("video/mp4");
  const bytes = Buffer.from(await video.arrayBuffer());
  expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
  expect(bytes.includes(Buffer.from("avc1"))).toBe(true);
  expect(bytes.length).toBeGreaterThan(4_000);

  expect(await server.stop()).toBe(0);
  const database = new DatabaseSync(join(server.dataDir, "genvideo.db"), { readOnly: true });
  const row = database.prepare("select state, lease_owner from tasks where id = ?").get(second) as {
    state: string;
    lease_owner: string | null;
  };
  database.close();
  // Whatever the second task was doing, it is either finished or back in the queue, not held by a dead worker.
  expect(["queued", "completed"]).toContain(row.state);
  expect(row.lease_owner).toBeNull();
}, 40_000);
