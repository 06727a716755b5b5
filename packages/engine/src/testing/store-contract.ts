/**
 * The behaviour every `Store` must have, as a vitest suite that any store runs
 * against itself: the engine's memory store, the server's SQLite stores, and any
 * new store (PostgreSQL) the same way. It pins down what ports.ts says in prose:
 * atomic transactions, compare-and-set transitions, claims and leases.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AccountRecord, Store, TaskRecord, WebhookEventRecord } from "../ports.js";

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

/**
 * Registers the store contract as a vitest `describe` block. `openStore` is called
 * before each case and must return a new, empty, migrated store; the suite closes it
 * after the case. The suite adds one account, `acc-1`, before each case.
 *
 * @example
 * ```ts
 * import { describeStoreContract } from "@genvideo/engine/testing";
 *
 * describeStoreContract("PostgreSQL", async () => openPostgresStore(await freshDatabaseUrl()));
 * ```
 */
export function describeStoreContract(name: string, openStore: () => Promise<Store> | Store): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await openStore();
      await store.transaction((tx) => tx.insertAccount(account("acc-1", "alice", 10)));
    });
    afterEach(async () => {
      await store.close();
    });

    it("keeps accounts and moves credits only through the ledger", async () => {
      await store.transaction(async (tx) => {
        await tx.insertAccount(account("acc-2", "bob", 0));
        await tx.appendLedger(ledger("l-1", "acc-2", 1000, "grant"));
        await tx.appendLedger({ ...ledger("l-2", "acc-2", -2, "charge"), taskId: "task-x" });
      });
      const [bob, byName, all, entries] = await store.transaction(async (tx) => [
        await tx.getAccount("acc-2"),
        await tx.getAccountByName("bob"),
        await tx.listAccounts(),
        await tx.listLedger("acc-2"),
      ]);
      expect(bob).toEqual({ id: "acc-2", name: "bob", credits: 998, createdAt: T0 });
      expect(byName).toEqual(bob);
      expect((all as AccountRecord[]).map((a) => a.name).sort()).toEqual(["alice", "bob"]);
      expect(entries).toEqual([
        { id: "l-1", accountId: "acc-2", taskId: null, delta: 1000, reason: "grant", createdAt: T0 },
        { id: "l-2", accountId: "acc-2", taskId: "task-x", delta: -2, reason: "charge", createdAt: T0 },
      ]);
      expect(await store.transaction((tx) => tx.getAccount("nobody"))).toBeUndefined();
    });

    it("refuses a ledger entry that would overdraw the account, changing nothing", async () => {
      const outcome = await store.transaction((tx) =>
        tx.appendLedger(ledger("l-over", "acc-1", -11, "charge")),
      );
      expect(outcome).toBe(false);
      expect(await store.transaction((tx) => tx.appendLedger(ledger("l-all", "acc-1", -10, "charge")))).toBe(
        true,
      );
      const [alice, entries] = await store.transaction(async (tx) => [
        await tx.getAccount("acc-1"),
        await tx.listLedger("acc-1"),
      ]);
      expect((alice as AccountRecord).credits).toBe(0);
      expect((entries as unknown[]).length).toBe(1);
      await expect(
        store.transaction((tx) => tx.appendLedger(ledger("l-x", "acc-none", 1, "grant"))),
      ).rejects.toThrow();
    });

    it("commits all of a transaction or none of it", async () => {
      await store.transaction((tx) => tx.insertTask(taskRecord("t-kept")));
      await expect(
        store.transaction(async (tx) => {
          await tx.appendLedger(ledger("l-9", "acc-1", -3, "charge"));
          await tx.insertTask(taskRecord("t-rollback"));
          await tx.transitionTask("t-kept", ["queued"], { state: "failed", failureCode: "TIMEOUT" });
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      const [alice, rolledBack, kept, entries] = await store.transaction(async (tx) => [
        await tx.getAccount("acc-1"),
        await tx.getTask("t-rollback"),
        await tx.getTask("t-kept"),
        await tx.listLedger("acc-1"),
      ]);
      expect((alice as AccountRecord).credits).toBe(10);
      expect(rolledBack).toBeUndefined();
      expect(kept).toEqual(taskRecord("t-kept"));
      expect(entries).toEqual([]);
    });

    it("serialises concurrent transactions: no charge is lost", async () => {
      await Promise.all(
        Array.from({ length: 25 }, (_, index) =>
          store.transaction(async (tx) => {
            const current = await tx.getAccount("acc-1");
            await new Promise((resolve) => setTimeout(resolve, 0));
            if (current && current.credits > 0)
              await tx.appendLedger(ledger(`c-${index}`, "acc-1", -1, "charge"));
          }),
        ),
      );
      const alice = await store.transaction((tx) => tx.getAccount("acc-1"));
      expect(alice?.credits).toBe(0);
      expect(await store.transaction((tx) => tx.listLedger("acc-1"))).toHaveLength(10);
    });

    it("finds API keys by hash and records revocation and expiry", async () => {
      const key = {
        id: "key-1",
        accountId: "acc-1",
        hash: "a".repeat(64),
        prefix: "gen_sk_AbCd",
        createdAt: T0,
        revokedAt: null,
        expiresAt: null,
        name: "ci",
        lastUsedAt: null,
      };
      await store.transaction((tx) => tx.insertApiKey(key));
      expect(await store.transaction((tx) => tx.getApiKeyByHash(key.hash))).toEqual(key);
      expect(await store.transaction((tx) => tx.getApiKey("key-1"))).toEqual(key);
      expect(await store.transaction((tx) => tx.getApiKey("key-2"))).toBeUndefined();
      await store.transaction((tx) => tx.updateApiKey("key-1", { revokedAt: T0 + 5 }));
      await store.transaction((tx) => tx.updateApiKey("key-1", { expiresAt: T0 + 9 }));
      await store.transaction((tx) => tx.updateApiKey("key-1", { lastUsedAt: T0 + 7 }));
      expect(await store.transaction((tx) => tx.listApiKeys("acc-1"))).toEqual([
        { ...key, revokedAt: T0 + 5, expiresAt: T0 + 9, lastUsedAt: T0 + 7 },
      ]);
      expect(await store.transaction((tx) => tx.getApiKeyByHash("b".repeat(64)))).toBeUndefined();
    });

    it("keeps webhook secrets per account", async () => {
      const secret = { id: "ws-1", accountId: "acc-1", secret: "whsec_AAAA", createdAt: T0, expiresAt: null };
      await store.transaction((tx) => tx.insertWebhookSecret(secret));
      await store.transaction((tx) => tx.updateWebhookSecret("ws-1", { expiresAt: T0 + MINUTE }));
      expect(await store.transaction((tx) => tx.listWebhookSecrets("acc-1"))).toEqual([
        { ...secret, expiresAt: T0 + MINUTE },
      ]);
    });

    it("stores a task exactly as given", async () => {
      const original = taskRecord("t-1", {
        request: {
          prompt: "a cat [[delay:90s]]",
          model_type: "gen-3",
          aspect_ratio: "9:16",
          reference_images: ["data:image/png;base64,iVBORw0KGgo="],
          callback_url: "https://example.com/hook",
        },
        modelType: "gen-3",
        aspectRatio: "9:16",
        callbackUrl: "https://example.com/hook",
        scenario: { delayMs: 90_000 },
        cost: 2,
      });
      await store.transaction((tx) => tx.insertTask(original));
      expect(await store.transaction((tx) => tx.getTask("t-1"))).toEqual(original);
      expect(await store.transaction((tx) => tx.getTask("t-missing"))).toBeUndefined();
    });

    it("lets exactly one of two racing transitions win", async () => {
      await store.transaction((tx) =>
        tx.insertTask(taskRecord("t-race", { state: "processing", leaseOwner: "w1" })),
      );
      const outcomes = await Promise.all([
        store.transaction((tx) =>
          tx.transitionTask("t-race", ["queued", "processing"], {
            state: "completed",
            videoKey: "v",
            completedAt: T0 + 1,
          }),
        ),
        store.transaction((tx) =>
          tx.transitionTask("t-race", ["queued", "processing"], {
            state: "failed",
            failureCode: "TIMEOUT",
            completedAt: T0 + 2,
          }),
        ),
      ]);
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const final = await store.transaction((tx) => tx.getTask("t-race"));
      expect(final?.state === "completed" ? final.failureCode : final?.videoKey).toBeNull();
    });

    it("applies a transition only while the lease is held by the named owner", async () => {
      await store.transaction((tx) =>
        tx.insertTask(taskRecord("t-lease", { state: "processing", leaseOwner: "w1" })),
      );
      expect(
        await store.transaction((tx) => tx.transitionTask("t-lease", ["processing"], { progress: 50 }, "w2")),
      ).toBe(false);
      expect(
        await store.transaction((tx) => tx.transitionTask("t-lease", ["processing"], { progress: 50 }, "w1")),
      ).toBe(true);
      expect(
        await store.transaction((tx) => tx.transitionTask("t-lease", ["queued"], { progress: 60 })),
      ).toBe(false);
      const after = await store.transaction((tx) => tx.getTask("t-lease"));
      // Only the named fields change.
      expect(after).toEqual({
        ...taskRecord("t-lease", { state: "processing", leaseOwner: "w1" }),
        progress: 50,
      });
      expect(
        await store.transaction((tx) => tx.transitionTask("t-nope", ["processing"], { progress: 1 })),
      ).toBe(false);
    });

    it("transitions several tasks in one call, each its own compare-and-set with its own video key", async () => {
      await store.transaction(async (tx) => {
        await tx.insertTask(taskRecord("t-ours-1", { state: "processing", leaseOwner: "w1" }));
        await tx.insertTask(
          taskRecord("t-ours-2", { state: "processing", leaseOwner: "w1", videoKey: "old.mp4" }),
        );
        await tx.insertTask(taskRecord("t-taken", { state: "processing", leaseOwner: "w2" }));
        await tx.insertTask(taskRecord("t-ended", { state: "failed", leaseOwner: null }));
      });
      const patch = { state: "completed" as const, progress: 100, completedAt: T0 + 1, leaseOwner: null };
      const changed = await store.transaction((tx) =>
        tx.transitionTasks(
          [
            { id: "t-ours-1", videoKey: "one.mp4" },
            { id: "t-ours-2" },
            { id: "t-taken", videoKey: "taken.mp4" },
            { id: "t-ended", videoKey: "ended.mp4" },
            { id: "t-missing", videoKey: "missing.mp4" },
          ],
          ["processing"],
          patch,
          "w1",
        ),
      );
      expect([...changed].sort()).toEqual(["t-ours-1", "t-ours-2"]);
      const task = (id: string) => store.transaction((tx) => tx.getTask(id));
      expect(await task("t-ours-1")).toMatchObject({ ...patch, videoKey: "one.mp4" });
      // No key of its own: the one it had stays.
      expect(await task("t-ours-2")).toMatchObject({ ...patch, videoKey: "old.mp4" });
      expect(await task("t-taken")).toMatchObject({ state: "processing", leaseOwner: "w2", videoKey: null });
      expect(await task("t-ended")).toMatchObject({ state: "failed", videoKey: null });
      expect(await store.transaction((tx) => tx.transitionTasks([], ["processing"], patch))).toEqual([]);
    });

    it("claims queued tasks oldest first, each once", async () => {
      await store.transaction(async (tx) => {
        await tx.insertTask(taskRecord("t-c", { createdAt: T0 + 3 }));
        await tx.insertTask(taskRecord("t-a", { createdAt: T0 + 1 }));
        await tx.insertTask(taskRecord("t-b", { createdAt: T0 + 2 }));
        await tx.insertTask(taskRecord("t-p", { createdAt: T0, state: "processing" }));
      });
      const now = T0 + 10;
      const first = await store.transaction((tx) => tx.claimQueuedTasks("w1", 2, now, now + MINUTE));
      expect(first.map((t) => t.id)).toEqual(["t-a", "t-b"]);
      for (const claimed of first) {
        expect(claimed).toMatchObject({
          state: "processing",
          leaseOwner: "w1",
          leaseExpiresAt: now + MINUTE,
          startedAt: now,
        });
      }
      const second = await store.transaction((tx) => tx.claimQueuedTasks("w2", 5, now, now + MINUTE));
      expect(second.map((t) => t.id)).toEqual(["t-c"]);
      expect(await store.transaction((tx) => tx.claimQueuedTasks("w3", 5, now, now + MINUTE))).toEqual([]);
      expect((await store.transaction((tx) => tx.getTask("t-a")))?.leaseOwner).toBe("w1");
    });

    it("never hands one queued task to two concurrent claimers", async () => {
      await store.transaction(async (tx) => {
        for (let index = 0; index < 20; index++)
          await tx.insertTask(taskRecord(`t-${index}`, { createdAt: T0 + index }));
      });
      const claims = await Promise.all(
        ["w1", "w2", "w3", "w4"].map((owner) =>
          store.transaction((tx) => tx.claimQueuedTasks(owner, 7, T0 + 100, T0 + MINUTE)),
        ),
      );
      const ids = claims.flat().map((t) => t.id);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });

    it("hands tasks whose lease ran out back to the queue, longest expired first, keeping their video", async () => {
      const now = T0 + 5 * MINUTE;
      const leased = (id: string, leaseExpiresAt: number) =>
        taskRecord(id, {
          state: "processing",
          leaseOwner: "w",
          leaseExpiresAt,
          startedAt: T0,
          finishAt: now,
          videoKey: `${id}.mp4`,
        });
      await store.transaction(async (tx) => {
        await tx.insertTask(leased("expired-last", now));
        await tx.insertTask(leased("expired-first", now - 2));
        await tx.insertTask(leased("expired-second", now - 1));
        await tx.insertTask(leased("live", now + 1));
        await tx.insertTask(taskRecord("queued"));
      });
      expect(await store.transaction((tx) => tx.releaseExpiredLeases(now, 2))).toBe(2);
      const state = async (id: string) => (await store.transaction((tx) => tx.getTask(id)))?.state;
      expect(await state("expired-first")).toBe("queued");
      expect(await state("expired-second")).toBe("queued");
      expect(await state("expired-last")).toBe("processing");
      expect(await store.transaction((tx) => tx.releaseExpiredLeases(now, 10))).toBe(1);
      expect(await store.transaction((tx) => tx.releaseExpiredLeases(now, 10))).toBe(0);
      expect(await store.transaction((tx) => tx.getTask("expired-first"))).toMatchObject({
        state: "queued",
        leaseOwner: null,
        leaseExpiresAt: null,
        startedAt: null,
        finishAt: null,
        videoKey: "expired-first.mp4",
      });
      expect(await store.transaction((tx) => tx.getTask("live"))).toMatchObject({
        state: "processing",
        leaseOwner: "w",
      });
    });

    it("leaves a lease its owner renewed after it ran out: the expiry is part of the compare-and-set", async () => {
      const now = T0 + 5 * MINUTE;
      await store.transaction((tx) =>
        tx.insertTask(taskRecord("late", { state: "processing", leaseOwner: "w", leaseExpiresAt: now - 1 })),
      );
      // The owner, frozen past its lease, wakes and renews before anyone released the task.
      expect(
        await store.transaction((tx) =>
          tx.transitionTask("late", ["processing"], { leaseExpiresAt: now + MINUTE }, "w"),
        ),
      ).toBe(true);
      expect(await store.transaction((tx) => tx.releaseExpiredLeases(now, 10))).toBe(0);
      expect(await store.transaction((tx) => tx.getTask("late"))).toMatchObject({
        state: "processing",
        leaseOwner: "w",
        leaseExpiresAt: now + MINUTE,
      });
    });

    it("lists overdue tasks and due completions", async () => {
      const now = T0 + 5 * MINUTE;
      await store.transaction(async (tx) => {
        await tx.insertTask(taskRecord("late-q", { deadlineAt: now - 5 }));
        await tx.insertTask(taskRecord("late-p", { state: "processing", deadlineAt: now }));
        await tx.insertTask(taskRecord("late-done", { state: "completed", deadlineAt: now - 9 }));
        await tx.insertTask(taskRecord("early", { deadlineAt: now + 1 }));
        await tx.insertTask(
          taskRecord("ready", {
            state: "processing",
            videoKey: "k",
            finishAt: now,
            deadlineAt: now + MINUTE,
          }),
        );
        await tx.insertTask(
          taskRecord("rendering", {
            state: "processing",
            videoKey: null,
            finishAt: now - 1,
            deadlineAt: now + MINUTE,
          }),
        );
        await tx.insertTask(
          taskRecord("doomed", {
            state: "processing",
            scenario: { fail: "UNSAFE_CONTENT" },
            finishAt: now - 2,
            deadlineAt: now + MINUTE,
          }),
        );
        await tx.insertTask(
          taskRecord("later", {
            state: "processing",
            videoKey: "k",
            finishAt: now + 1,
            deadlineAt: now + MINUTE,
          }),
        );
      });
      const [overdue, due, limited] = await store.transaction(async (tx) => [
        await tx.listOverdueTasks(now, 10),
        await tx.listDueCompletions(now, 10),
        await tx.listOverdueTasks(now, 1),
      ]);
      expect(overdue.map((t) => t.id).sort()).toEqual(["late-p", "late-q"]);
      expect(due.map((t) => t.id)).toEqual(["doomed", "ready"]);
      expect(limited).toHaveLength(1);
    });

    it("counts tasks overall and per account", async () => {
      await store.transaction(async (tx) => {
        await tx.insertAccount(account("acc-2", "bob", 0));
        await tx.insertTask(taskRecord("t-1"));
        await tx.insertTask(taskRecord("t-2"));
        await tx.insertTask(taskRecord("t-3", { accountId: "acc-2" }));
      });
      expect(await store.transaction((tx) => tx.countTasks())).toBe(3);
      expect(await store.transaction((tx) => tx.countTasks("acc-1"))).toBe(2);
      expect(await store.transaction((tx) => tx.countTasks("acc-3"))).toBe(0);
    });

    it("keeps one live idempotency record per account and key", async () => {
      const record = {
        accountId: "acc-1",
        key: "k1",
        requestHash: "h1",
        state: "in_progress" as const,
        responseStatus: null,
        responseBody: null,
        createdAt: T0,
        expiresAt: T0 + 24 * 60 * MINUTE,
      };
      expect(await store.transaction((tx) => tx.insertIdempotency(record))).toBe(true);
      expect(await store.transaction((tx) => tx.insertIdempotency({ ...record, requestHash: "h2" }))).toBe(
        false,
      );
      await store.transaction((tx) => tx.completeIdempotency("acc-1", "k1", 200, '{"ok":true}'));
      expect(await store.transaction((tx) => tx.getIdempotency("acc-1", "k1"))).toEqual({
        ...record,
        state: "done",
        responseStatus: 200,
        responseBody: '{"ok":true}',
      });
      // Once expired, the key is free again.
      const later = {
        ...record,
        requestHash: "h3",
        createdAt: record.expiresAt,
        expiresAt: record.expiresAt + MINUTE,
      };
      expect(await store.transaction((tx) => tx.insertIdempotency(later))).toBe(true);
      expect(await store.transaction((tx) => tx.getIdempotency("acc-1", "k1"))).toEqual(later);
      await store.transaction((tx) => tx.deleteIdempotency("acc-1", "k1"));
      expect(await store.transaction((tx) => tx.getIdempotency("acc-1", "k1"))).toBeUndefined();
      await store.transaction(async (tx) => {
        await tx.insertIdempotency({ ...record, key: "old", expiresAt: T0 + 1 });
        await tx.insertIdempotency({ ...record, key: "new", expiresAt: T0 + 3 });
      });
      expect(await store.transaction((tx) => tx.deleteExpiredIdempotency(T0 + 2))).toBe(1);
      expect(await store.transaction((tx) => tx.getIdempotency("acc-1", "new"))).toBeDefined();
    });

    it("claims due webhook events under a lease and records attempts", async () => {
      await store.transaction(async (tx) => {
        await tx.insertTask(taskRecord("t-w"));
        await tx.insertWebhookEvent(event("e-due", { nextAttemptAt: T0 }));
        await tx.insertWebhookEvent(event("e-later", { nextAttemptAt: T0 + MINUTE }));
        await tx.insertWebhookEvent(event("e-done", { state: "delivered", nextAttemptAt: null }));
      });
      const now = T0 + 1;
      const first = await store.transaction((tx) => tx.claimDueWebhookEvents("s1", 10, now, now + 1000));
      expect(first.map((e) => e.id)).toEqual(["e-due"]);
      expect(first[0]).toMatchObject({ leaseOwner: "s1", leaseExpiresAt: now + 1000 });
      // Held: nobody else gets it until the lease runs out.
      expect(
        await store.transaction((tx) => tx.claimDueWebhookEvents("s2", 10, now + 999, now + 2000)),
      ).toEqual([]);
      const stolen = await store.transaction((tx) =>
        tx.claimDueWebhookEvents("s2", 10, now + 1000, now + 2000),
      );
      expect(stolen.map((e) => e.id)).toEqual(["e-due"]);

      await store.transaction(async (tx) => {
        await tx.insertWebhookAttempt({
          eventId: "e-due",
          attempt: 2,
          startedAt: T0 + 5,
          durationMs: 7,
          statusCode: 500,
          error: null,
          responseExcerpt: '<b>oops</b> "é"',
        });
        await tx.insertWebhookAttempt({
          eventId: "e-due",
          attempt: 1,
          startedAt: T0 + 1,
          durationMs: 3,
          statusCode: null,
          error: "ECONNREFUSED",
        });
        await tx.updateWebhookEvent("e-due", {
          state: "delivered",
          attemptCount: 2,
          nextAttemptAt: null,
          leaseOwner: null,
          leaseExpiresAt: null,
        });
      });
      expect(await store.transaction((tx) => tx.getWebhookEvent("e-due"))).toEqual(
        event("e-due", { state: "delivered", attemptCount: 2, nextAttemptAt: null }),
      );
      const attempts = await store.transaction((tx) => tx.listWebhookAttempts("e-due"));
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
      // The response excerpt comes back as written; an attempt recorded without one reads as null.
      expect(attempts.map((a) => a.responseExcerpt)).toEqual([null, '<b>oops</b> "é"']);
      expect((await store.transaction((tx) => tx.listWebhookEvents("t-w"))).map((e) => e.id).sort()).toEqual([
        "e-done",
        "e-due",
        "e-later",
      ]);
    });
  });
}

function account(id: string, name: string, credits: number): AccountRecord {
  return { id, name, credits, createdAt: T0 };
}

function ledger(id: string, accountId: string, delta: number, reason: "grant" | "charge" | "refund") {
  return { id, accountId, taskId: null, delta, reason, createdAt: T0 };
}

/**
 * A queued task record of account `acc-1` with a small text request, created at
 * 2026-01-01T00:00:00Z, for store tests; `overrides` replace any field.
 */
export function taskRecord(id: string, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id,
    accountId: "acc-1",
    state: "queued",
    failureCode: null,
    request: { prompt: "a calm sea", model_type: "gen-3-fast", aspect_ratio: "16:9" },
    modelType: "gen-3-fast",
    aspectRatio: "16:9",
    callbackUrl: null,
    scenario: {},
    cost: 1,
    refundedAt: null,
    progress: 0,
    createdAt: T0,
    updatedAt: T0,
    startedAt: null,
    finishAt: null,
    deadlineAt: T0 + 10 * MINUTE,
    completedAt: null,
    videoKey: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...overrides,
  };
}

function event(id: string, overrides: Partial<WebhookEventRecord> = {}): WebhookEventRecord {
  return {
    id,
    taskId: "t-w",
    accountId: "acc-1",
    url: "https://example.com/hook",
    payload: '{"success":true}',
    state: "pending",
    attemptCount: 0,
    nextAttemptAt: T0,
    createdAt: T0,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...overrides,
  };
}
