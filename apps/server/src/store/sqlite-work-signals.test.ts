import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { WebhookEventRecord } from "@genvideo/engine";
import { taskRecord } from "@genvideo/engine/testing";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "./sqlite-store.js";

const directory = mkdtempSync(join(tmpdir(), "genvideo-signals-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let counter = 0;

const NOW = Date.UTC(2026, 0, 1);

function webhookEvent(id: string, overrides: Partial<WebhookEventRecord>): WebhookEventRecord {
  return {
    id,
    taskId: "t-1",
    accountId: "acc-1",
    url: "https://example.com/hook",
    payload: "{}",
    state: "pending",
    attemptCount: 1,
    nextAttemptAt: NOW,
    createdAt: NOW,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...overrides,
  };
}

async function open() {
  const path = join(directory, `s${counter++}.db`);
  const handle = await openSqliteStore(path);
  await handle.store.transaction((tx) =>
    tx.insertAccount({ id: "acc-1", name: "a", credits: 10, createdAt: NOW }),
  );
  return { ...handle, path };
}

describe("SQLite work signals", () => {
  it("the write mark moves on this process's writes and on another connection's commits, not on reads", async () => {
    const { store, workSignals, path } = await open();
    const before = workSignals.writeMark();
    await store.transaction((tx) => tx.getAccount("acc-1"));
    expect(workSignals.writeMark()).toBe(before);

    await store.transaction((tx) => tx.insertTask(taskRecord("t-1")));
    const afterOwn = workSignals.writeMark();
    expect(afterOwn).not.toBe(before);

    // The CLI, or a second server on the same file.
    const other = new DatabaseSync(path);
    other.prepare("update accounts set credits = credits + 1 where id = 'acc-1'").run();
    other.close();
    expect(workSignals.writeMark()).not.toBe(afterOwn);
    await store.close();
  });

  it("work is due now while a task is queued or processing, at the next webhook attempt otherwise", async () => {
    const { store, workSignals } = await open();
    expect(workSignals.nextDueAt(NOW)).toBeUndefined();

    await store.transaction((tx) =>
      tx.insertTask(taskRecord("t-1", { state: "completed", createdAt: NOW, deadlineAt: NOW + 600_000 })),
    );
    expect(workSignals.nextDueAt(NOW)).toBeUndefined();

    await store.transaction(async (tx) => {
      await tx.insertWebhookEvent(webhookEvent("e-later", { nextAttemptAt: NOW + 30_000 }));
      await tx.insertWebhookEvent(webhookEvent("e-done", { state: "delivered", nextAttemptAt: null }));
    });
    expect(workSignals.nextDueAt(NOW)).toBe(NOW + 30_000);

    await store.transaction((tx) =>
      tx.insertTask(taskRecord("t-2", { createdAt: NOW, deadlineAt: NOW + 600_000 })),
    );
    expect(workSignals.nextDueAt(NOW)).toBe(NOW);
    await store.transaction((tx) =>
      tx.transitionTask("t-2", ["queued"], { state: "processing", leaseOwner: "w", leaseExpiresAt: NOW + 1 }),
    );
    expect(workSignals.nextDueAt(NOW)).toBe(NOW);
    await store.close();
  });

  it("reads the partial indexes of unfinished work, not the table", async () => {
    const { store, path } = await open();
    const database = new DatabaseSync(path, { readOnly: true });
    const plan = database
      .prepare(`explain query plan select
        exists (select 1 from tasks where state in ('queued', 'processing')) as active,
        (select min(next_attempt_at) from webhook_events where state = 'pending') as webhook_due`)
      .all()
      .map((row) => String(row.detail));
    database.close();
    expect(plan).toContain("SCAN tasks USING INDEX tasks_unfinished_deadline");
    expect(plan.some((line) => line.includes("USING COVERING INDEX webhook_events_pending_due"))).toBe(true);
    await store.close();
  });
});
