/**
 * What the dashboard's reads promise, run on SQLite and on PostgreSQL alike:
 * keyset pages that hold every row once (ties on `created_at` included), the
 * live list's look-back for tasks that commit late, test events in the
 * delivery log, and never a row of another account.
 */
import type { LedgerReason, Store } from "@genvideo/engine";
import { taskRecord } from "@genvideo/engine/testing";
import type { SSEStreamingApi } from "hono/streaming";
import type { Kysely } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { liveTaskStream } from "../../src/dashboard/task-stream.js";
import { type Cursor, DashboardQueries, type TestEventRecord } from "../../src/store/dashboard-queries.js";
import type { Database } from "../../src/store/tables.js";
import { eventually } from "./server-process.js";

export interface OpenedDatabase {
  db: Kysely<Database>;
  store: Store;
}

const T0 = Date.UTC(2026, 0, 1);
const MINE = "acc-1";
const THEIRS = "acc-2";

export function describeDashboardQueries(name: string, open: () => Promise<OpenedDatabase>): void {
  describe(`dashboard queries on ${name}`, () => {
    let opened: OpenedDatabase;
    let queries: DashboardQueries;

    beforeEach(async () => {
      opened = await open();
      queries = new DashboardQueries(opened.db);
      await opened.store.transaction(async (tx) => {
        await tx.insertAccount({ id: MINE, name: "mine", credits: 0, createdAt: T0 });
        await tx.insertAccount({ id: THEIRS, name: "theirs", credits: 0, createdAt: T0 });
      });
    });

    afterEach(() => opened.store.close());

    const insertTasks = (tasks: { id: string; accountId?: string; createdAt: number }[]) =>
      opened.store.transaction(async (tx) => {
        for (const { id, accountId = MINE, createdAt } of tasks)
          await tx.insertTask(taskRecord(id, { accountId, createdAt, updatedAt: createdAt }));
      });

    it("pages an account's tasks newest first by keyset, rows with one created_at included, never another's", async () => {
      // 25 tasks, three to a millisecond; ids in an order unrelated to time.
      const mine = Array.from({ length: 25 }, (_, i) => ({
        id: `${((i * 7) % 25).toString(16).padStart(2, "0")}${"0".repeat(6)}-0000-4000-8000-${String(i).padStart(12, "0")}`,
        createdAt: T0 + Math.floor(i / 3),
      }));
      await insertTasks([
        ...mine,
        ...[1, 2, 3].map((i) => ({ id: `ffff000${i}-theirs`, accountId: THEIRS, createdAt: T0 + i })),
      ]);
      const expected = [...mine]
        .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
        .map((t) => t.id);
      const seen: string[] = [];
      let cursor: Cursor | undefined;
      for (;;) {
        const page = await queries.listTasks(MINE, {}, 7, cursor);
        seen.push(...page.map((t) => t.id));
        const last = page.at(-1);
        if (page.length < 7 || !last) break;
        cursor = { createdAt: last.createdAt, id: last.id };
      }
      expect(seen).toEqual(expected);

      // The start of an id finds it, in this account only.
      const one = mine[4]!.id;
      expect((await queries.listTasks(MINE, { idPrefix: one.slice(0, 8) }, 50)).map((t) => t.id)).toEqual([
        one,
      ]);
      expect(await queries.listTasks(THEIRS, { idPrefix: one.slice(0, 8) }, 50)).toEqual([]);
      expect(await queries.tasksByIds(THEIRS, [one])).toEqual([]);
      expect((await queries.countTasksByState(MINE)).queued).toBe(25);
      // Times come back as numbers on every database.
      expect((await queries.tasksByIds(MINE, [one]))[0]).toMatchObject({
        createdAt: mine[4]!.createdAt,
        cost: 1,
      });
    });

    it("finds tasks created after a cursor, oldest first, within the filter and except the ids given", async () => {
      await insertTasks([
        { id: "a", createdAt: T0 + 10 },
        { id: "b", createdAt: T0 + 20 },
        { id: "c", createdAt: T0 + 20 },
        { id: "d", createdAt: T0 + 30 },
        { id: "e", accountId: THEIRS, createdAt: T0 + 40 },
      ]);
      const after = (cursor: Cursor, except: string[] = [], from?: number) =>
        queries
          .tasksCreatedAfter(MINE, from === undefined ? {} : { from }, cursor, 10, except)
          .then((tasks) => tasks.map((t) => t.id));
      expect(await after({ createdAt: T0 + 20, id: "b" })).toEqual(["c", "d"]);
      expect(await after({ createdAt: T0, id: "" }, ["b", "d"])).toEqual(["a", "c"]);
      expect(await after({ createdAt: T0, id: "" }, [], T0 + 20)).toEqual(["b", "c", "d"]);
    });

    it("sends a task that commits after a newer one was sent, when within the look-back, once", async () => {
      await insertTasks([{ id: "a", createdAt: T0 + 1000 }]);
      const written: { event?: string; data: string }[] = [];
      const stream = {
        writeSSE: async (message: { event?: string; data: string }) => {
          written.push(message);
        },
        onAbort: () => undefined,
      } as unknown as SSEStreamingApi;
      const sentTop = () =>
        written
          .filter((m) => m.event === "task")
          .map((m) => JSON.parse(m.data) as { placement: string; html: string })
          .filter((m) => m.placement === "top")
          .map((m) => /id="task-([^"]+)"/.exec(m.html)![1]);
      const closing = new AbortController();
      const running = liveTaskStream(stream, {
        queries,
        accountId: MINE,
        filter: {},
        since: { createdAt: T0 + 1000, id: "a" },
        watch: [],
        intervalMs: 5,
        lookbackMs: 500,
        closing: closing.signal,
      });
      try {
        await insertTasks([{ id: "b", createdAt: T0 + 2000 }]);
        await eventually(async () => (sentTop().includes("b") ? true : undefined), 10_000, "b");
        // "late" is 400 ms older than b, inside the look-back; "too-late" is 600 ms older.
        await insertTasks([
          { id: "late", createdAt: T0 + 1600 },
          { id: "too-late", createdAt: T0 + 1400 },
          { id: "theirs", accountId: THEIRS, createdAt: T0 + 2050 },
        ]);
        await eventually(async () => (sentTop().includes("late") ? true : undefined), 10_000, "late");
        await insertTasks([{ id: "c", createdAt: T0 + 2100 }]);
        await eventually(async () => (sentTop().includes("c") ? true : undefined), 10_000, "c");
      } finally {
        closing.abort();
        await running;
      }
      const top = sentTop();
      expect(top).not.toContain("too-late");
      expect(top).not.toContain("theirs");
      for (const id of ["b", "late", "c"]) expect(top.filter((sent) => sent === id)).toEqual([id]);
    });

    it("reads a task's ledger entries oldest first, that task's and that account's only", async () => {
      await insertTasks([{ id: "t1", createdAt: T0 }]);
      const entry = (id: string, taskId: string | null, delta: number, reason: LedgerReason, at: number) => ({
        id,
        accountId: MINE,
        taskId,
        delta,
        reason,
        createdAt: at,
      });
      // The refund's id sorts before the charge's: the order is the entries' times.
      const charge = entry("z-charge", "t1", -2, "charge", T0 + 1);
      const refund = entry("a-refund", "t1", 2, "refund", T0 + 9);
      await opened.store.transaction(async (tx) => {
        await tx.appendLedger(entry("grant", null, 100, "grant", T0));
        await tx.appendLedger(refund);
        await tx.appendLedger(charge);
        await tx.appendLedger(entry("other", "t2", -1, "charge", T0 + 5));
      });
      expect(await queries.taskLedger(MINE, "t1")).toEqual([charge, refund]);
      expect(await queries.taskLedger(THEIRS, "t1")).toEqual([]);
    });

    it("claims a key-creation form once, and forgets it a day later", async () => {
      expect(await queries.claimFormNonce("form-1", MINE, T0)).toBe(true);
      expect(await queries.claimFormNonce("form-1", MINE, T0 + 1)).toBe(false);
      expect(await queries.claimFormNonce("form-2", MINE, T0 + 1)).toBe(true);
      await queries.deleteExpired(T0 + 24 * 60 * 60_000);
      expect(await queries.claimFormNonce("form-1", MINE, T0 + 24 * 60 * 60_000)).toBe(true);
      expect(await queries.claimFormNonce("form-2", MINE, T0 + 24 * 60 * 60_000)).toBe(false);
    });

    it("keeps test events newest first by keyset, for their account only", async () => {
      const event = (id: string, createdAt: number, accountId = MINE): TestEventRecord => ({
        id,
        accountId,
        url: "https://example.com/hook",
        payload: "{}",
        createdAt,
        durationMs: 12,
        statusCode: id.endsWith("1") ? null : 200,
        error: id.endsWith("1") ? "connection refused" : null,
        responseExcerpt: id.endsWith("1") ? null : "ok",
        requestHeaders: {
          "webhook-id": id,
          "webhook-timestamp": "1767225600",
          "webhook-signature": "v1,c2ln",
        },
      });
      for (const [id, at] of [
        ["msg_test_1", T0 + 1],
        ["msg_test_2", T0 + 2],
        ["msg_test_3", T0 + 2],
        ["msg_test_4", T0 + 3],
      ] as const)
        await queries.insertTestEvent(event(id, at));
      await queries.insertTestEvent(event("msg_test_9", T0 + 5, THEIRS));
      const first = await queries.listTestEvents(MINE, 2);
      expect(first.map((e) => e.id)).toEqual(["msg_test_4", "msg_test_3"]);
      const rest = await queries.listTestEvents(MINE, 10, { createdAt: T0 + 2, id: "msg_test_3" });
      expect(rest).toEqual([event("msg_test_2", T0 + 2), event("msg_test_1", T0 + 1)]);
      expect((await queries.listTestEvents(THEIRS, 10)).map((e) => e.id)).toEqual(["msg_test_9"]);
    });
  });
}
