import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../store/sqlite-store.js";
import { QUEUE_SNAPSHOT_SQL, readQueueSnapshot } from "./queue-snapshot.js";

describe("the queue snapshot a scrape reads (SQLite)", () => {
  it("reads only partial indexes of the rows it counts, never a table", async () => {
    const { store, db } = await openSqliteStore(":memory:");
    try {
      const { rows } = await sql<{
        detail: string;
      }>`${sql.raw(`explain query plan ${QUEUE_SNAPSHOT_SQL}`)}`.execute(db);
      const plan = rows.map((row) => row.detail);
      // Counts walk a partial index (as many entries as rows in that state); MIN is one probe.
      expect(plan.filter((step) => /^(SCAN|SEARCH) (tasks|webhook_events)/.test(step))).toEqual([
        "SCAN tasks USING COVERING INDEX tasks_queued_created",
        "SCAN tasks USING COVERING INDEX tasks_processing_lease",
        "SEARCH tasks USING COVERING INDEX tasks_queued_created",
        "SCAN webhook_events USING COVERING INDEX webhook_events_pending_due",
      ]);
      expect(await readQueueSnapshot(db)).toEqual({
        queued: 0,
        processing: 0,
        oldestQueuedAt: null,
        webhooksPending: 0,
      });
    } finally {
      await store.close();
    }
  });
});
