/**
 * SIGKILL while a webhook attempt is in flight, with another event waiting
 * for its retry and one already delivered; then a restart on the same
 * database. Delivery is at least once: the interrupted event arrives again
 * with the same webhook-id, the waiting one is delivered, the delivered one
 * is not sent again, and no event is lost.
 */
import type { DatabaseSync } from "node:sqlite";
import { afterAll, expect, it } from "vitest";
import { createTask } from "./support/api.js";
import { startReceiver, type TestReceiver } from "./support/receivers.js";
import { withServerDatabase } from "./support/server-database.js";
import {
  eventually,
  FAST_SERVICE_ENV,
  type RunningServer,
  removeDataDir,
  startServer,
  temporaryDataDir,
} from "./support/server-process.js";

const dataDir = temporaryDataDir();
let receiver: TestReceiver | undefined;
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  removeDataDir(dataDir);
});

const ENV = FAST_SERVICE_ENV;

interface EventRow {
  id: string;
  task_id: string;
  state: string;
  attempt_count: number;
  lease_owner: string | null;
}

const events = () =>
  withServerDatabase(
    dataDir,
    (database: DatabaseSync) =>
      database
        .prepare("select id, task_id, state, attempt_count, lease_owner from webhook_events")
        .all() as unknown as EventRow[],
  );

const taskOf = (request: { body: string }) => (JSON.parse(request.body) as { task_id: string }).task_id;

it("delivers every event after a SIGKILL mid-delivery, the interrupted one again with the same webhook-id", async () => {
  let crashed = false;
  receiver = await startReceiver((request, response) => {
    if (crashed) return void response.writeHead(200).end();
    if (request.url === "/hang") return; // The attempt in flight when the process dies.
    if (request.url === "/retry") return void response.writeHead(503).end();
    response.writeHead(200).end();
  });
  const at = (path: string) => `${receiver!.origin}${path}`;
  const requestsTo = (path: string) => receiver!.requests.filter((request) => request.url === path);

  server = await startServer({ dataDir, env: ENV });
  const delivered = await createTask(server, { prompt: "delivered before", callback_url: at("/ok") });
  const retrying = await createTask(server, { prompt: "retry pending", callback_url: at("/retry") });
  const interrupted = await createTask(server, { prompt: "in flight", callback_url: at("/hang") });
  // Recorded, not just received: a 200 whose attempt is not yet written would be sent again (at least once).
  await eventually(
    async () => {
      if (requestsTo("/hang").length !== 1) return undefined;
      const rows = new Map(events().map((event) => [event.task_id, event]));
      return rows.get(delivered)?.state === "delivered" && (rows.get(retrying)?.attempt_count ?? 0) >= 1
        ? true
        : undefined;
    },
    10_000,
    "an attempt recorded at each receiver and one in flight",
  );
  await server.kill();
  crashed = true;

  const atCrash = new Map(events().map((event) => [event.task_id, event]));
  expect(atCrash.get(delivered)).toMatchObject({ state: "delivered", attempt_count: 1, lease_owner: null });
  expect(atCrash.get(retrying)).toMatchObject({ state: "pending" });
  // The interrupted attempt was never recorded: its event is still claimed by the dead process.
  expect(atCrash.get(interrupted)).toMatchObject({ state: "pending", attempt_count: 0 });
  expect(atCrash.get(interrupted)?.lease_owner).not.toBeNull();

  // The dead process's claim lasts 10 s of real time (composition/engine-settings.ts), whatever the
  // time scale; a live process renews it at half-life, so a 30 s attempt is never claimed twice.
  // Age it instead of waiting.
  withServerDatabase(
    dataDir,
    (database) =>
      database.exec("update webhook_events set lease_expires_at = 0 where lease_owner is not null"),
    { readOnly: false },
  );

  server = await startServer({ dataDir, env: ENV });
  const final = await eventually(
    async () => {
      const rows = events();
      return rows.every((row) => row.state === "delivered") ? rows : undefined;
    },
    10_000,
    "every event to be delivered after the restart",
  );

  // No event lost, none duplicated in the outbox: one per task with a callback.
  expect(final.map((row) => row.task_id).sort()).toEqual([delivered, retrying, interrupted].sort());
  const byTask = new Map(final.map((row) => [row.task_id, row]));

  const hung = requestsTo("/hang");
  expect(hung).toHaveLength(2);
  expect(hung.map((request) => request.headers["webhook-id"])).toEqual([
    byTask.get(interrupted)!.id,
    byTask.get(interrupted)!.id,
  ]);
  expect(hung[1]!.body).toBe(hung[0]!.body);
  expect(byTask.get(interrupted)).toMatchObject({ attempt_count: 1 });

  // Its retry may itself have been in flight at the crash: at least one more request, one webhook-id.
  const retried = requestsTo("/retry");
  expect(retried.length).toBeGreaterThan(atCrash.get(retrying)!.attempt_count);
  expect(new Set(retried.map((request) => request.headers["webhook-id"]))).toEqual(
    new Set([byTask.get(retrying)!.id]),
  );
  expect(byTask.get(retrying)!.attempt_count).toBeGreaterThan(atCrash.get(retrying)!.attempt_count);

  // Delivered before the crash: not sent again.
  expect(requestsTo("/ok").map(taskOf)).toEqual([delivered]);
  expect(await server.stop()).toBe(0);
});
