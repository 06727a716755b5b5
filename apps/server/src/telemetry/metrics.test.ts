import { describe, expect, it } from "vitest";
import { createServerMetrics } from "./metrics.js";
import type { QueueSnapshot } from "./queue-snapshot.js";

describe("the scrape-time queue gauges", () => {
  it("read the database once per scrape, afresh at each scrape, and age the oldest task in service time", async () => {
    const snapshots: QueueSnapshot[] = [
      { queued: 3, processing: 1, oldestQueuedAt: 10_000, webhooksPending: 2 },
      { queued: 0, processing: 0, oldestQueuedAt: null, webhooksPending: 0 },
    ];
    let reads = 0;
    const metrics = createServerMetrics({
      role: "worker",
      renderSlots: 4,
      activity: () => ({ renders: 2, leasesHeld: 3, webhookAttempts: 1 }),
      queue: async () => snapshots[reads++] as QueueSnapshot,
      serviceNow: () => 70_000,
      onQueueError: () => {},
    });
    const first = await metrics.registry.metrics();
    expect(reads).toBe(1);
    expect(first).toContain('genvideo_queue_tasks{state="queued"} 3');
    expect(first).toContain("genvideo_queue_oldest_task_age_seconds 60");
    expect(first).toContain("genvideo_webhook_events_pending 2");
    expect(first).toContain("genvideo_worker_render_slots_busy 2");
    expect(first).toContain("genvideo_worker_leases_held 3");
    const second = await metrics.registry.metrics();
    expect(reads).toBe(2);
    expect(second).toContain('genvideo_queue_tasks{state="queued"} 0');
    expect(second).toContain("genvideo_queue_oldest_task_age_seconds 0");
    expect(second).toContain("genvideo_webhook_events_pending 0");
  });

  it("still answers a scrape when the database does not, without queue values that would mislead", async () => {
    const errors: unknown[] = [];
    const metrics = createServerMetrics({
      role: "api",
      renderSlots: 0,
      activity: () => ({ renders: 0, leasesHeld: 0, webhookAttempts: 0 }),
      queue: () => Promise.reject(new Error("connection refused")),
      serviceNow: () => 0,
      onQueueError: (error) => errors.push(error),
    });
    const text = await metrics.registry.metrics();
    expect(text).not.toMatch(/^genvideo_queue_tasks\{/m);
    expect(text).toContain('genvideo_process_role{role="api"} 1');
    expect(errors).toHaveLength(1);
  });
});
