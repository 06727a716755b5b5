/**
 * Compressed time with the real synthetic renderer: at GENVIDEO_TIME_SCALE=60
 * ten tasks created at once all complete with the default render slots, and
 * the start log says nothing; at 600, where those slots cannot finish a burst
 * before the deadline, it says so once and names the way out.
 */
import { afterAll, expect, it } from "vitest";
import { createTask, getStatus } from "./support/api.js";
import { type RunningServer, startWebhookReceiver, type WebhookReceiver } from "./support/server-process.js";
import { serverSet } from "./support/use-server.js";

const receivers: WebhookReceiver[] = [];
const servers = serverSet({
  after: afterAll,
  afterStop: () => Promise.all(receivers.map((receiver) => receiver.close())),
});

const capacityWarnings = (server: RunningServer) =>
  server
    .logRecords()
    .filter((record) => record.level === "warn" && record.wayOut === "GENVIDEO_RENDERER=fixture");

it("says nothing at GENVIDEO_TIME_SCALE=60 and completes ten tasks created at once there", async () => {
  const server = await servers.start({
    env: { GENVIDEO_TIME_SCALE: "60", GENVIDEO_RATE_LIMITS: "off", GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1" },
    ownSession: true,
  });
  expect(capacityWarnings(server)).toEqual([]);
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  const ids = await Promise.all(
    Array.from({ length: 10 }, (_, index) =>
      createTask(server, { prompt: `burst ${index}`, callback_url: receiver.url }),
    ),
  );
  // Each task's end arrives as a webhook, so no status polling takes CPU from the renders. The
  // deadline is 10 real seconds after creation; a TIMEOUT would arrive as a failure.
  const webhooks = await receiver.whenReceived(10);
  const outcomes = webhooks.map(
    ({ body }) => JSON.parse(body) as { task_id: string; success: boolean; message: string },
  );
  expect(outcomes.map(({ task_id }) => task_id).sort()).toEqual([...ids].sort());
  expect(outcomes.map(({ success, message }) => ({ success, message }))).toEqual(
    Array(10).fill({ success: true, message: expect.any(String) }),
  );
  for (const id of ids) expect(await getStatus(server, id)).toMatchObject({ status: "completed" });
}, 30_000);

it("warns once at start when the renders cannot keep up (GENVIDEO_TIME_SCALE=600)", async () => {
  const server = await servers.start({ env: { GENVIDEO_TIME_SCALE: "600", GENVIDEO_RATE_LIMITS: "off" } });
  const warnings = capacityWarnings(server);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ timeScale: 600, rendersPerSecond: 2, renderer: "synthetic" });
  expect(String(warnings[0]?.msg)).toContain("GENVIDEO_TIME_SCALE=600");
});
