// Every code of the failure catalog, end to end through the engine: its prompt marker fails a task
// with it (at the finish time, or at the deadline for [[timeout]]), the status and the webhook carry
// it, the credits come back exactly when the catalog says, and observers hear the same. A code added
// to the catalog that the engine cannot produce, or refunds otherwise, fails here.
import { FAILURE_CATALOG, FAILURE_CODES, TASK_DEADLINE_MS } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { createHarness } from "../../test/support/harness.js";
import type { TaskEndedEvent } from "../observer.js";

describe.each(FAILURE_CODES)("failure code %s", (code) => {
  const { marker, refunded } = FAILURE_CATALOG[code];

  it(`${marker} fails the task with it, ${refunded ? "refunded" : "credits kept"}, and says so everywhere`, async () => {
    const ended: TaskEndedEvent[] = [];
    const h = await createHarness({}, { observer: { taskEnded: (event) => ended.push(event) } });
    const taskId = await h.create({
      prompt: `A fox ${marker}`,
      model_type: "gen-3",
      callback_url: "https://hooks.example.com/genvideo",
    });
    await h.advance(TASK_DEADLINE_MS + 1);

    expect(await h.status(taskId)).toMatchObject({ status: "failed", message: code, video_url: null });
    const ledger = await h.engine.admin.listLedger(h.accountId);
    expect(ledger.map((entry) => [entry.reason, entry.delta])).toEqual([
      ["grant", 1000],
      ["charge", -2],
      ...(refunded ? [["refund", 2]] : []),
    ]);
    expect(h.sender.deliveries.map((delivery) => JSON.parse(delivery.body))).toEqual([
      { success: false, message: code, task_id: taskId, video_url: null },
    ]);
    expect(ended).toEqual([expect.objectContaining({ outcome: code, refunded })]);
  });
});
