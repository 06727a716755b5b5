// The queue snapshot every process reads at each scrape, on PostgreSQL: with many finished tasks
// and a few unfinished ones (as a cluster that has run a while has), every count reads a partial
// index of the rows it counts, MIN(created_at) reads one entry, and no plan scans a table.
import pg from "pg";
import { expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { QUEUE_SNAPSHOT_SQL, readQueueSnapshot } from "../../src/telemetry/queue-snapshot.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describePostgres("the queue snapshot on PostgreSQL", () => {
  it("reads partial indexes only, however many tasks have ended", { timeout: 60_000 }, async () => {
    const url = await freshDatabase();
    const { store, db } = await openPostgresStore(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`
        insert into accounts (id, name, credits, created_at) values ('a', 'a', 0, 0);
        insert into tasks (id, account_id, state, model_type, aspect_ratio, scenario, cost, progress,
                           created_at, updated_at, deadline_at)
        select 't' || n, 'a', case when n % 1000 = 0 then 'queued' when n % 1000 = 1 then 'processing'
                                   else 'completed' end,
               'gen-3-fast', '16:9', '{}', 1, 0, n, n, n + 600000
          from generate_series(1, 50000) as n;
        analyze tasks; analyze webhook_events;`);
      const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
        `explain (format json) ${QUEUE_SNAPSHOT_SQL}`,
      );
      const steps = nodes(rows[0]!["QUERY PLAN"][0].Plan).filter((node) => node["Relation Name"] === "tasks");
      expect(steps.map((node) => node["Node Type"])).not.toContain("Seq Scan");
      // Each an index that holds unfinished tasks only (the planner picks among them by cost).
      const unfinishedOnly = [
        "tasks_queued_created",
        "tasks_processing_lease",
        "tasks_processing_finish",
        "tasks_unfinished_deadline",
      ];
      for (const node of steps) expect(unfinishedOnly).toContain(node["Index Name"]);
      expect(steps.map((node) => node["Index Name"])).toContain("tasks_queued_created");
      expect(await readQueueSnapshot(db)).toEqual({
        queued: 50,
        processing: 50,
        oldestQueuedAt: 1000,
        webhooksPending: 0,
      });
    } finally {
      await client.end();
      await store.close();
    }
  });
});
