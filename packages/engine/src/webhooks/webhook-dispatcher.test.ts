import { describe, expect, it } from "vitest";
import { createHarness, type Harness, START } from "../../test/support/harness.js";
import { manualClock } from "../clock.js";
import { resolveEngineConfig } from "../config.js";
import type {
  Store,
  WebhookAttemptOutcome,
  WebhookDelivery,
  WebhookEventRecord,
  WebhookSender,
} from "../ports.js";
import { WebhookDispatcher } from "./webhook-dispatcher.js";

/** A sender whose "dead" receivers hang until the test lets them go; every other URL answers 200 at once. */
class HangingSender implements WebhookSender {
  readonly fast: string[] = [];
  readonly hanging: ((outcome: WebhookAttemptOutcome) => void)[] = [];
  #waiting: (() => void)[] = [];

  send(delivery: WebhookDelivery, signal: AbortSignal): Promise<WebhookAttemptOutcome> {
    let outcome: Promise<WebhookAttemptOutcome>;
    if (delivery.url.includes("dead")) {
      outcome = new Promise((resolve) => {
        this.hanging.push(resolve);
        signal.addEventListener("abort", () =>
          resolve({ ok: false, statusCode: null, error: "aborted", durationMs: 0 }),
        );
      });
    } else {
      this.fast.push(delivery.url);
      outcome = Promise.resolve({ ok: true, statusCode: 200, durationMs: 1 });
    }
    for (const wake of this.#waiting.splice(0)) wake();
    return outcome;
  }

  /**
   * Resolves once `check` holds, checked again at every send. A claimed attempt reaches the sender
   * only after its signature, which Web Crypto computes on the thread pool: no number of event
   * loop turns is sure to be enough on a busy machine.
   */
  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise<void>((wake) => this.#waiting.push(wake));
  }

  release(): void {
    for (const resolve of this.hanging.splice(0))
      resolve({ ok: false, statusCode: null, error: "timeout", durationMs: 30_000 });
  }
}

async function seed(h: Harness, urls: string[]): Promise<void> {
  await h.store.transaction(async (tx) => {
    for (const [index, url] of urls.entries()) {
      const event: WebhookEventRecord = {
        id: `msg_${String(index).padStart(32, "0")}`,
        taskId: `task-${index}`,
        accountId: h.accountId,
        url,
        payload: JSON.stringify({ index }),
        state: "pending",
        attemptCount: 0,
        // Older first: the dead receivers are claimed before the fast ones (the worst order).
        nextAttemptAt: START + index,
        createdAt: START + index,
        leaseOwner: null,
        leaseExpiresAt: null,
      };
      await tx.insertWebhookEvent(event);
    }
  });
}

async function setup(options: {
  concurrency: number;
  maxStalledAttempts?: number;
  claimIntervalMs?: number;
}) {
  const h = await createHarness();
  const sender = new HangingSender();
  let realNow = 0;
  const dispatcher = new WebhookDispatcher({
    store: h.store,
    clock: h.clock,
    wallClock: manualClock(Date.now()),
    sender,
    config: resolveEngineConfig({
      webhooks: { concurrency: options.concurrency, claimIntervalMs: options.claimIntervalMs ?? 0 },
    }),
    workerId: "dispatcher-test",
    realTime: () => realNow,
    stalledAfterMs: 1_000,
    maxStalledAttempts: options.maxStalledAttempts ?? 256,
  });
  const passRealTime = (milliseconds: number) => {
    realNow += milliseconds;
  };
  return { h, sender, dispatcher, passRealTime };
}

/** One turn of the event loop: every microtask queued so far has run, memory store work included. */
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("WebhookDispatcher under slow and dead receivers", () => {
  it("keeps fast receivers flowing past more hanging receivers than slots", async () => {
    const { h, sender, dispatcher, passRealTime } = await setup({ concurrency: 4 });
    const dead = Array.from({ length: 20 }, (_, index) => `https://dead-${index}.example.com/hook`);
    const fast = Array.from({ length: 10 }, (_, index) => `https://fast.example.com/${index}`);
    await seed(h, [...dead, ...fast]);
    h.clock.advance(1_000);

    // The first claim takes the four oldest: all dead. Nothing fast has gone out yet.
    expect(await dispatcher.dispatchDue(h.clock.now())).toBe(4);
    await flush();
    expect(sender.fast).toHaveLength(0);
    expect(dispatcher.inFlight()).toEqual({ total: 4, stalled: 0 });

    // A second later those four are stalled: they stop holding working slots.
    for (let round = 0; round < 10 && sender.fast.length < fast.length; round++) {
      passRealTime(1_000);
      await dispatcher.dispatchDue(h.clock.now());
      await flush();
    }
    // Every event is claimed by now (four slots free up each round); the sends follow their signatures.
    await sender.until(() => sender.fast.length === fast.length);
    await flush();
    expect(sender.fast.sort()).toEqual([...fast].sort());
    expect(dispatcher.inFlight()).toEqual({ total: 20, stalled: 20 });

    await sender.until(() => sender.hanging.length === 20);
    sender.release();
    await dispatcher.idle();
    const states = await h.store.transaction(async (tx) =>
      Promise.all(
        [...dead, ...fast].map((_, index) => tx.getWebhookEvent(`msg_${String(index).padStart(32, "0")}`)),
      ),
    );
    expect(states.slice(20).every((event) => event?.state === "delivered")).toBe(true);
    expect(states.slice(0, 20).every((event) => event?.state === "pending" && event.attemptCount === 1)).toBe(
      true,
    );
  });

  it("bounds what is in flight: working slots plus the stalled allowance, never the backlog", async () => {
    const { h, sender, dispatcher, passRealTime } = await setup({ concurrency: 3, maxStalledAttempts: 5 });
    await seed(
      h,
      Array.from({ length: 50 }, (_, index) => `https://dead-${index}.example.com/hook`),
    );
    h.clock.advance(1_000);
    for (let round = 0; round < 10; round++) {
      await dispatcher.dispatchDue(h.clock.now());
      await flush();
      expect(dispatcher.inFlight().total).toBeLessThanOrEqual(3 + 5);
      passRealTime(1_000);
    }
    expect(dispatcher.inFlight().total).toBe(8);
    await sender.until(() => sender.hanging.length === 8);
    const leased = await h.store.transaction(async (tx) => {
      let count = 0;
      for (let index = 0; index < 50; index++) {
        const event = await tx.getWebhookEvent(`msg_${String(index).padStart(32, "0")}`);
        if (event?.leaseOwner) count++;
      }
      return count;
    });
    expect(leased).toBe(8);
    // A graceful stop aborts them and hands every event back, uncounted, for the next process.
    await dispatcher.drain();
    expect(dispatcher.inFlight().total).toBe(0);
    const after = await h.store.transaction(async (tx) => {
      const events = [];
      for (let index = 0; index < 50; index++)
        events.push(await tx.getWebhookEvent(`msg_${String(index).padStart(32, "0")}`));
      return events;
    });
    expect(after.every((event) => event?.state === "pending" && event.attemptCount === 0)).toBe(true);
    expect(after.every((event) => event?.leaseOwner === null)).toBe(true);
    expect(await dispatcher.dispatchDue(h.clock.now())).toBe(0);
  });

  it("refills a freed slot at once when the backlog is larger than the slots", async () => {
    const { h, sender, dispatcher } = await setup({ concurrency: 2 });
    const fast = Array.from({ length: 9 }, (_, index) => `https://fast.example.com/${index}`);
    await seed(h, fast);
    // Never more than the slots at once, however the completions interleave.
    let peak = 0;
    const send = sender.send.bind(sender);
    sender.send = (delivery, signal) => {
      peak = Math.max(peak, dispatcher.inFlight().total);
      return send(delivery, signal);
    };
    h.clock.advance(1_000);
    // One dispatch, no further ticks: completions pull the rest of the backlog.
    // Two slots finish concurrently, so the order of the sends is not part of the contract.
    await dispatcher.dispatchDue(h.clock.now());
    await dispatcher.idle();
    expect([...sender.fast].sort()).toEqual([...fast].sort());
    expect(peak).toBeLessThanOrEqual(2);
    const events = await h.store.transaction((tx) =>
      Promise.all(fast.map((_, index) => tx.getWebhookEvent(`msg_${String(index).padStart(32, "0")}`))),
    );
    expect(events.map((event) => [event?.state, event?.attemptCount])).toEqual(
      fast.map(() => ["delivered", 1]),
    );
  });

  it("renews a running claim only once half its lease is used, and not after it ended", async () => {
    const { h, sender, dispatcher } = await setup({ concurrency: 2 });
    await seed(h, ["https://dead-0.example.com/hook"]);
    const leaseMs = resolveEngineConfig().webhooks.leaseMs;
    const id = `msg_${"0".padStart(32, "0")}`;
    const lease = async () => (await h.store.transaction((tx) => tx.getWebhookEvent(id)))?.leaseExpiresAt;

    h.clock.advance(1_000);
    await dispatcher.dispatchDue(h.clock.now());
    const first = await lease();
    expect(first).toBe(h.clock.now() + leaseMs);
    h.clock.advance(leaseMs / 4);
    await dispatcher.dispatchDue(h.clock.now());
    expect(await lease()).toBe(first);
    h.clock.advance(leaseMs / 2);
    await dispatcher.dispatchDue(h.clock.now());
    expect(await lease()).toBe(h.clock.now() + leaseMs);

    await sender.until(() => sender.hanging.length === 1);
    sender.release();
    await dispatcher.idle();
    expect(await lease()).toBeNull();
  });

  it("sends nothing on a claim whose lease ran out before the send (a process frozen after claiming)", async () => {
    const { h, sender, dispatcher } = await setup({ concurrency: 2 });
    await seed(h, ["https://fast.example.com/hook"]);
    const leaseMs = resolveEngineConfig().webhooks.leaseMs;
    const id = `msg_${"0".padStart(32, "0")}`;

    // The claim is made at `claimedAt`; by the time the send would start, the lease is over.
    const claimedAt = h.clock.now();
    h.clock.advance(leaseMs);
    expect(await dispatcher.dispatchDue(claimedAt)).toBe(1);
    await dispatcher.idle();
    expect(sender.fast).toEqual([]);
    expect(await h.store.transaction((tx) => tx.listWebhookAttempts(id))).toEqual([]);

    // The event is anyone's again: the next claim delivers it, once.
    await dispatcher.dispatchDue(h.clock.now());
    await dispatcher.idle();
    expect(sender.fast).toEqual(["https://fast.example.com/hook"]);
    const event = await h.store.transaction((tx) => tx.getWebhookEvent(id));
    expect(event).toMatchObject({ state: "delivered", attemptCount: 1, leaseOwner: null });
  });

  it("aborts an attempt still waiting when its claim runs out, and records nothing (a process cut off from its database)", async () => {
    const warnings: string[] = [];
    const h = await createHarness();
    const sender = new HangingSender();
    let reachable = true;
    const store: Store = {
      transaction: (work) =>
        reachable ? h.store.transaction(work) : Promise.reject(new Error("database unreachable")),
      close: () => h.store.close(),
    };
    const dispatcher = new WebhookDispatcher({
      store,
      clock: h.clock,
      wallClock: manualClock(Date.now()),
      sender,
      config: resolveEngineConfig({ logger: { warn: (message) => warnings.push(message) } }),
      workerId: "dispatcher-test",
    });
    await seed(h, ["https://dead-0.example.com/hook", "https://dead-1.example.com/hook"]);
    const leaseMs = resolveEngineConfig().webhooks.leaseMs;

    h.clock.advance(1_000);
    await dispatcher.dispatchDue(h.clock.now());
    await sender.until(() => sender.hanging.length === 2);
    // No renewal reached the database (a tick that never gets through): the next tick that does
    // run finds both claims over. Their attempts end as aborted; neither is recorded.
    h.clock.advance(leaseMs);
    reachable = false;
    await expect(dispatcher.dispatchDue(h.clock.now())).rejects.toThrow("database unreachable");
    await dispatcher.idle();
    reachable = true;
    for (const index of [0, 1]) {
      const id = `msg_${String(index).padStart(32, "0")}`;
      expect(await h.store.transaction((tx) => tx.listWebhookAttempts(id))).toEqual([]);
    }
    // Each logged once for the episode, not once per attempt: the claims lost, the renewal that failed.
    expect(warnings.filter((message) => message.startsWith("webhook claim ran out"))).toHaveLength(1);
    expect(warnings.filter((message) => message.startsWith("webhook claims not renewed"))).toHaveLength(1);
  });
});

describe("WebhookDispatcher with a claim interval (a worker that ticks back to back)", () => {
  /** Counts the store's outbox claims. */
  function countingClaims(store: Store) {
    const claims = { count: 0 };
    const transaction = store.transaction.bind(store);
    store.transaction = ((work, hints) =>
      transaction(
        (tx) =>
          work(
            new Proxy(tx, {
              get(target, name, receiver) {
                const value = Reflect.get(target, name, receiver);
                if (name !== "claimDueWebhookEvents") return value;
                return (...args: Parameters<typeof target.claimDueWebhookEvents>) => {
                  claims.count++;
                  return target.claimDueWebhookEvents(...args);
                };
              },
            }),
          ),
        hints,
      )) as Store["transaction"];
    return claims;
  }

  it("reads the outbox once per interval, and an event due meanwhile goes at the first read after", async () => {
    const { h, sender, dispatcher } = await setup({ concurrency: 4, claimIntervalMs: 50 });
    const claims = countingClaims(h.store);
    await dispatcher.dispatchDue(h.clock.now());
    // The harness's store may run a transaction's work more than once: what one read costs.
    const perRead = claims.count;
    expect(perRead).toBeGreaterThan(0);
    await seed(h, ["https://fast.example.com/0"]);
    h.clock.advance(20);
    // Ticks back to back within the interval: no read, nothing sent yet.
    await dispatcher.dispatchDue(h.clock.now());
    await dispatcher.dispatchDue(h.clock.now());
    expect(claims.count).toBe(perRead);
    expect(sender.fast).toEqual([]);
    h.clock.advance(30);
    expect(await dispatcher.dispatchDue(h.clock.now())).toBe(1);
    await dispatcher.idle();
    expect(claims.count).toBe(2 * perRead);
    expect(sender.fast).toEqual(["https://fast.example.com/0"]);
  });

  it("claims again at once after a claim that took every slot, whatever the interval", async () => {
    const { h, sender, dispatcher } = await setup({ concurrency: 2, claimIntervalMs: 60_000 });
    const fast = Array.from({ length: 5 }, (_, index) => `https://fast.example.com/${index}`);
    await seed(h, fast);
    h.clock.advance(1_000);
    await dispatcher.dispatchDue(h.clock.now());
    await dispatcher.idle();
    expect([...sender.fast].sort()).toEqual([...fast].sort());
  });
});
