import { expect, it } from "vitest";
import type { ApiKeyRecord, CallerKeyRecord, Store, TaskRecord, TaskStatusRecord } from "../../ports.js";
import { account, MINUTE, T0, taskRecord } from "./fixtures.js";

const CALLER_KEY_FIELDS = [
  "id",
  "accountId",
  "hash",
  "revokedAt",
  "expiresAt",
  "lastUsedAt",
] as const satisfies readonly (keyof CallerKeyRecord)[];
const STATUS_FIELDS = [
  "id",
  "accountId",
  "state",
  "failureCode",
  "progress",
  "createdAt",
  "updatedAt",
  "finishAt",
  "deadlineAt",
  "videoKey",
] as const satisfies readonly (keyof TaskStatusRecord)[];

function pick<T, K extends keyof T>(record: T, fields: readonly K[]): Pick<T, K> {
  return Object.fromEntries(fields.map((field) => [field, record[field]])) as Pick<T, K>;
}

const key = (id: string, accountId: string, hash: string): ApiKeyRecord => ({
  id,
  accountId,
  hash,
  prefix: "gen_sk_AbCd",
  createdAt: T0,
  revokedAt: null,
  expiresAt: null,
  name: id,
  lastUsedAt: null,
});

const charge = (id: string, taskId: string, delta: number, accountId = "acc-1") => ({
  id,
  accountId,
  taskId,
  delta,
  reason: "charge" as const,
  createdAt: T0,
});

/** The API's hot path: a status read's key and task together, a create's task with its charge. */
export function requestPath(current: () => Store): void {
  it("reads a key with its account's task, and without another account's", async () => {
    const store = current();
    const alice = {
      ...key("key-a", "acc-1", "a".repeat(64)),
      expiresAt: T0 + 3 * MINUTE,
      lastUsedAt: T0 + 7,
    };
    const bob = key("key-b", "acc-2", "b".repeat(64));
    const images = {
      prompt: "x",
      model_type: "gen-3" as const,
      aspect_ratio: "1:1" as const,
      reference_images: [`data:image/png;base64,${"A".repeat(4000)}`],
    };
    const done = taskRecord("t-done", {
      state: "completed",
      progress: 100,
      updatedAt: T0 + 61_000,
      startedAt: T0 + 1_000,
      finishAt: T0 + 60_000,
      completedAt: T0 + 61_000,
      videoKey: "videos/t-done.mp4",
    });
    const failed = taskRecord("t-failed", {
      state: "failed",
      failureCode: "UNSAFE_CONTENT",
      updatedAt: T0 + 9,
    });
    await store.transaction(async (tx) => {
      await tx.insertAccount(account("acc-2", "bob", 0));
      await tx.insertApiKey(alice);
      await tx.insertApiKey({ ...bob, revokedAt: T0 + 1 });
      await tx.insertTask(taskRecord("t-a"));
      await tx.insertTask(taskRecord("t-big", { request: images as never }));
      await tx.insertTask(done);
      await tx.insertTask(failed);
    });
    // What a status read needs of each (a store may return whole records).
    const read = async (hash: string, taskId: string) => {
      const found = await store.transaction((tx) => tx.getApiKeyAndTask(hash, taskId), { readOnly: true });
      return (
        found && {
          apiKey: pick(found.apiKey, CALLER_KEY_FIELDS),
          task: found.task && pick(found.task, STATUS_FIELDS),
        }
      );
    };
    const shown = (task: TaskRecord) => pick(task, STATUS_FIELDS);
    const aliceKey = pick(alice, CALLER_KEY_FIELDS);
    expect(await read(alice.hash, "t-a")).toEqual({ apiKey: aliceKey, task: shown(taskRecord("t-a")) });
    expect(await read(alice.hash, "t-big")).toEqual({ apiKey: aliceKey, task: shown(taskRecord("t-big")) });
    expect(await read(alice.hash, "t-done")).toEqual({ apiKey: aliceKey, task: shown(done) });
    expect(await read(alice.hash, "t-failed")).toEqual({ apiKey: aliceKey, task: shown(failed) });
    expect(await read(alice.hash, "t-none")).toEqual({ apiKey: aliceKey, task: undefined });
    // The key comes back whatever its state (the caller decides), never another account's task.
    expect(await read(bob.hash, "t-a")).toEqual({
      apiKey: pick({ ...bob, revokedAt: T0 + 1 }, CALLER_KEY_FIELDS),
      task: undefined,
    });
    expect(await read("c".repeat(64), "t-a")).toBeUndefined();
  });

  it("inserts a task with its charge, or nothing when the balance is short", async () => {
    const store = current();
    const task = taskRecord("t-1", { cost: 4 });
    expect(await store.transaction((tx) => tx.insertChargedTask(task, charge("l-1", "t-1", -4)))).toBe(true);
    const refused = taskRecord("t-2", { cost: 7 });
    expect(await store.transaction((tx) => tx.insertChargedTask(refused, charge("l-2", "t-2", -7)))).toBe(
      false,
    );
    const [alice, entries, stored, missing] = await store.transaction(async (tx) => [
      await tx.getAccount("acc-1"),
      await tx.listLedger("acc-1"),
      await tx.getTask("t-1"),
      await tx.getTask("t-2"),
    ]);
    expect(alice).toEqual(account("acc-1", "alice", 6));
    expect(entries).toEqual([charge("l-1", "t-1", -4)]);
    expect(stored).toEqual(task);
    expect(missing).toBeUndefined();
  });

  it("completes a create's Idempotency-Key with its response in the same write, and not when refused", async () => {
    const store = current();
    const claim = (key: string) => ({
      accountId: "acc-1",
      key,
      requestHash: "h",
      state: "in_progress" as const,
      responseStatus: null,
      responseBody: null,
      createdAt: T0,
      expiresAt: T0 + 1_000,
    });
    await store.transaction(async (tx) => {
      await tx.insertIdempotency(claim("order-1"));
      await tx.insertIdempotency(claim("order-2"));
    });
    const response = (key: string) => ({ key, status: 200, body: `{"task_id":"${key}"}` });
    const created = await store.transaction(
      (tx) =>
        tx.insertChargedTask(taskRecord("t-1", { cost: 4 }), charge("l-1", "t-1", -4), response("order-1")),
      { singleWrite: true },
    );
    const refused = await store.transaction(
      (tx) =>
        tx.insertChargedTask(taskRecord("t-2", { cost: 7 }), charge("l-2", "t-2", -7), response("order-2")),
      { singleWrite: true },
    );
    expect([created, refused]).toEqual([true, false]);
    const [first, second] = await store.transaction(async (tx) => [
      await tx.getIdempotency("acc-1", "order-1"),
      await tx.getIdempotency("acc-1", "order-2"),
    ]);
    expect(first).toEqual({
      ...claim("order-1"),
      state: "done",
      responseStatus: 200,
      responseBody: '{"task_id":"order-1"}',
    });
    expect(second).toEqual(claim("order-2"));
  });

  it("keeps a charged task's large request and rolls the whole create back with its transaction", async () => {
    const store = current();
    const images = {
      prompt: "x",
      model_type: "gen-3-fast" as const,
      aspect_ratio: "16:9" as const,
      reference_images: [`data:image/png;base64,${"A".repeat(4000)}`],
    };
    const task = taskRecord("t-big", { request: images as never });
    await store.transaction((tx) => tx.insertChargedTask(task, charge("l-big", "t-big", -1)));
    expect((await store.transaction((tx) => tx.getTask("t-big")))?.request).toEqual(images);
    await expect(
      store.transaction(async (tx) => {
        await tx.insertChargedTask(taskRecord("t-gone"), charge("l-gone", "t-gone", -1));
        throw new Error("abandoned");
      }),
    ).rejects.toThrow("abandoned");
    const [alice, gone] = await store.transaction(async (tx) => [
      await tx.getAccount("acc-1"),
      await tx.getTask("t-gone"),
    ]);
    expect(alice?.credits).toBe(9);
    expect(gone).toBeUndefined();
  });

  it("checks a create's key in its write when the store offers it: only a live key's account pays", async ({
    skip,
  }) => {
    const store = current();
    const insert = store.insertChargedTaskForKey?.bind(store);
    if (!insert) return skip("the store has no key-checked create (the engine reads the key first)");
    const now = T0 + 10_000;
    const live = key("key-live", "acc-1", "a".repeat(64));
    const soon = { ...key("key-soon", "acc-1", "b".repeat(64)), expiresAt: now + 1 };
    const expired = { ...key("key-expired", "acc-1", "c".repeat(64)), expiresAt: now };
    const revoked = { ...key("key-revoked", "acc-1", "d".repeat(64)), revokedAt: now + 60_000 };
    const poor = key("key-poor", "acc-2", "e".repeat(64));
    await store.transaction(async (tx) => {
      await tx.insertAccount(account("acc-2", "bob", 1));
      for (const apiKey of [live, soon, expired, revoked, poor]) await tx.insertApiKey(apiKey);
    });
    const { accountId: _, ...task } = taskRecord("t-1", { cost: 4 });
    const { accountId: __, ...entry } = charge("l-1", "t-1", -4);
    // What authenticating needs of the key (a store may return the whole record).
    const attempt = async (hash: string, id: string) => {
      const outcome = await insert(hash, now, { ...task, id }, { ...entry, id: `l-${id}`, taskId: id });
      return { ...outcome, apiKey: outcome.apiKey && pick(outcome.apiKey, CALLER_KEY_FIELDS) };
    };
    const caller = (apiKey: ApiKeyRecord) => pick(apiKey, CALLER_KEY_FIELDS);

    // Unknown, expired (at `now` itself) and revoked keys (whatever the revoking clock said) write nothing.
    for (const apiKey of [undefined, expired, revoked]) {
      expect(await attempt(apiKey?.hash ?? "f".repeat(64), `t-${apiKey?.id ?? "unknown"}`)).toEqual({
        apiKey: undefined,
      });
    }
    // A balance too short: nothing written, the balance told.
    expect(await attempt(poor.hash, "t-poor")).toEqual({ apiKey: caller(poor), charged: false, credits: 1 });
    expect(await attempt(live.hash, "t-live")).toEqual({ apiKey: caller(live), charged: true });
    expect(await attempt(soon.hash, "t-soon")).toEqual({ apiKey: caller(soon), charged: true });

    const [alice, bob, entries, tasks] = await store.transaction(async (tx) => [
      await tx.getAccount("acc-1"),
      await tx.getAccount("acc-2"),
      [...(await tx.listLedger("acc-1")), ...(await tx.listLedger("acc-2"))],
      await Promise.all(
        ["t-unknown", "t-key-expired", "t-key-revoked", "t-poor", "t-live", "t-soon"].map((id) =>
          tx.getTask(id),
        ),
      ),
    ]);
    expect([alice?.credits, bob?.credits]).toEqual([2, 1]);
    expect(entries).toEqual([
      { ...charge("l-t-live", "t-live", -4) },
      { ...charge("l-t-soon", "t-soon", -4) },
    ]);
    expect(tasks).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      taskRecord("t-live", { cost: 4 }),
      taskRecord("t-soon", { cost: 4 }),
    ]);
  });

  it("keeps a key-checked create's large request", async ({ skip }) => {
    const store = current();
    const insert = store.insertChargedTaskForKey?.bind(store);
    if (!insert) return skip("the store has no key-checked create");
    const live = key("key-live", "acc-1", "a".repeat(64));
    await store.transaction((tx) => tx.insertApiKey(live));
    const images = {
      prompt: "x",
      model_type: "gen-3-fast" as const,
      aspect_ratio: "16:9" as const,
      reference_images: [`data:image/png;base64,${"A".repeat(4000)}`],
    };
    const { accountId: _, ...task } = taskRecord("t-big", { request: images as never });
    const { accountId: __, ...entry } = charge("l-big", "t-big", -1);
    expect(await insert(live.hash, T0, task, entry)).toMatchObject({
      apiKey: pick(live, CALLER_KEY_FIELDS),
      charged: true,
    });
    expect((await store.transaction((tx) => tx.getTask("t-big")))?.request).toEqual(images);
  });
}
