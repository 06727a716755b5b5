import { expect, it } from "vitest";
import type { Store } from "../../ports.js";
import { event, MINUTE, T0, taskRecord } from "./fixtures.js";

/** The webhook outbox: claims under a lease, attempts. */
export function webhooks(current: () => Store): void {
  it("claims due webhook events under a lease and records attempts", async () => {
    const store = current();
    await store.transaction(async (tx) => {
      await tx.insertTask(taskRecord("t-w"));
      // Its creator's trace context travels with the event, for the attempt's span.
      await tx.insertWebhookEvent(
        event("e-due", {
          nextAttemptAt: T0,
          traceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        }),
      );
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
      event("e-due", {
        state: "delivered",
        attemptCount: 2,
        nextAttemptAt: null,
        traceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      }),
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
}
