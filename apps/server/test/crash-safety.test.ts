/**
 * SIGKILL with tasks queued and processing, then a restart on the same
 * database: every task ends in exactly one terminal state, the ledger
 * balances, and nothing acknowledged to a client is lost.
 */
import { afterAll, expect, it } from "vitest";
import { credits } from "./support/api.js";
import { withServerDatabase } from "./support/server-database.js";
import {
  eventually,
  type RunningServer,
  removeDataDir,
  startServer,
  startWebhookReceiver,
  temporaryDataDir,
} from "./support/server-process.js";

const dataDir = temporaryDataDir();
afterAll(() => removeDataDir(dataDir));

const ENV = {
  GENVIDEO_RENDERER: "fixture",
  // 10 minutes pass in 3 real seconds; one render slot.
  GENVIDEO_TIME_SCALE: "200",
  GENVIDEO_WORKERS: "1",
  GENVIDEO_RATE_LIMITS: "off",
  GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
};
/**
 * Before the crash, real renders: one takes a good part of a second, so with one slot a queue
 * is there when the server dies whatever the machine's speed (the fixture's instant renders
 * emptied it before the kill on some runs). After the restart, the fixture, to end them quickly.
 */
const BEFORE_CRASH = { ...ENV, GENVIDEO_RENDERER: "synthetic" };

interface TaskRow {
  id: string;
  state: string;
  failure_code: string | null;
  cost: number;
  refunded_at: number | null;
}

function readDatabase() {
  return withServerDatabase(dataDir, (database) => ({
    tasks: database
      .prepare("select id, state, failure_code, cost, refunded_at from tasks")
      .all() as unknown as TaskRow[],
    ledger: database.prepare("select task_id, delta, reason from ledger_entries").all() as unknown as {
      task_id: string | null;
      delta: number;
      reason: string;
    }[],
    events: database.prepare("select task_id, state from webhook_events").all() as unknown as {
      task_id: string;
      state: string;
    }[],
  }));
}

it("loses nothing and ends every task exactly once across a SIGKILL", async () => {
  const receiver = await startWebhookReceiver();
  let server: RunningServer = await startServer({ dataDir, env: BEFORE_CRASH });
  const startCredits = await credits(server);

  const prompts = [
    ...Array.from({ length: 12 }, (_, i) => `plain ${i}`),
    ...Array.from({ length: 8 }, (_, i) => `slow ${i} [[delay:3m]]`),
    ...Array.from({ length: 4 }, (_, i) => `stuck ${i} [[timeout]]`),
    ...Array.from({ length: 4 }, (_, i) => `broken ${i} [[fail:GENERATION_FAILED]]`),
    ...Array.from({ length: 4 }, (_, i) => `unsafe ${i} [[fail:UNSAFE_CONTENT]]`),
  ];
  const created: string[] = [];
  for (const [index, prompt] of prompts.entries()) {
    const response = await server.api("/api/gen/generate", {
      json: { prompt, ...(index % 3 === 0 ? { callback_url: receiver.url } : {}) },
    });
    expect(response.status).toBe(200);
    created.push(((await response.json()) as { task_id: string }).task_id);
  }
  // Dies mid-render: a task is processing (its render in flight), the ones behind it queued.
  await eventually(
    async () => (readDatabase().tasks.some((task) => task.state === "processing") ? true : undefined),
    10_000,
    "a task to be processing",
  );
  await server.kill();

  const atCrash = readDatabase();
  const states = new Set(atCrash.tasks.map((task) => task.state));
  expect(states).toContain("queued");
  expect(states).toContain("processing");
  expect(atCrash.tasks.map((task) => task.id).sort()).toEqual([...created].sort());

  server = await startServer({ dataDir, env: ENV });
  try {
    const final = await eventually(
      async () => {
        const snapshot = readDatabase();
        const done = snapshot.tasks.every((task) => task.state === "completed" || task.state === "failed");
        const notified = snapshot.events.every((event) => event.state !== "pending");
        return done && notified ? snapshot : undefined;
      },
      20_000,
      "every task to end",
    );

    expect(final.tasks).toHaveLength(created.length);
    for (const task of final.tasks) {
      const refundable = task.failure_code === "TIMEOUT" || task.failure_code === "GENERATION_FAILED";
      expect(task.state === "completed").toBe(task.failure_code === null);
      expect(task.refunded_at !== null).toBe(refundable);
      const entries = final.ledger.filter((entry) => entry.task_id === task.id);
      expect(entries.filter((entry) => entry.reason === "charge")).toEqual([
        { task_id: task.id, delta: -task.cost, reason: "charge" },
      ]);
      expect(entries.filter((entry) => entry.reason === "refund")).toHaveLength(refundable ? 1 : 0);
    }
    const byPrompt = (prefix: string) =>
      final.tasks.filter((task) => prompts[created.indexOf(task.id)]!.startsWith(prefix));
    for (const task of byPrompt("stuck")) expect(task.failure_code).toBe("TIMEOUT");
    for (const task of byPrompt("unsafe")) expect(task.failure_code).toBe("UNSAFE_CONTENT");

    // The ledger balances: the balance moved by exactly the charges minus the refunds.
    const charges = final.ledger.filter((e) => e.reason === "charge").reduce((sum, e) => sum - e.delta, 0);
    const refunds = final.ledger.filter((e) => e.reason === "refund").reduce((sum, e) => sum + e.delta, 0);
    expect(charges).toBe(created.length);
    expect(await credits(server)).toBe(startCredits - charges + refunds);

    // One notification per task that asked for one, sent once it ended.
    const withCallback = created.filter((_, index) => index % 3 === 0);
    expect(final.events.map((event) => event.task_id).sort()).toEqual([...withCallback].sort());
    expect(final.events.every((event) => event.state === "delivered")).toBe(true);
    const delivered = new Set(
      receiver.received.map((webhook) => (JSON.parse(webhook.body) as { task_id: string }).task_id),
    );
    expect([...delivered].sort()).toEqual([...withCallback].sort());
  } finally {
    expect(await server.stop()).toBe(0);
    await receiver.close();
  }
}, 30_000);

it("times out, at startup, a task whose deadline passed while the server was down", async () => {
  const downDir = temporaryDataDir();
  try {
    let server = await startServer({ dataDir: downDir, env: { GENVIDEO_RENDERER: "fixture" } });
    const before = await credits(server);
    const response = await server.api("/api/gen/generate", { json: { prompt: "waits forever [[timeout]]" } });
    const { task_id: taskId } = (await response.json()) as { task_id: string };
    expect(await server.stop()).toBe(0);

    // The deadline passes while nothing runs: move it into the past, as ten minutes of downtime would.
    withServerDatabase(
      downDir,
      (database) => database.prepare("update tasks set deadline_at = created_at where id = ?").run(taskId),
      { readOnly: false },
    );

    server = await startServer({ dataDir: downDir, env: { GENVIDEO_RENDERER: "fixture" } });
    // The very first read after the start already sees it: the sweep ran before the server listened.
    const status = (await (await server.api(`/api/gen/status/${taskId}`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ status: "failed", message: "TIMEOUT", video_url: null });
    expect(await credits(server)).toBe(before);
    expect(await server.stop()).toBe(0);
  } finally {
    removeDataDir(downDir);
  }
}, 30_000);
