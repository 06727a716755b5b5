// The plans of the queries that could grow with history, on PostgreSQL
// (test/support/query-plans-contract.ts). Sequential scans are priced out (enable_seqscan = off):
// with few rows a table scan is the planner's cheapest choice, so one left in a plan means that
// no index could serve the query.
import pg from "pg";
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import { describeQueryPlans, type Plan } from "../support/query-plans-contract.js";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

interface IndexShape {
  table: string;
  /** In index order, comma-separated. */
  columns: string;
  partial: boolean;
}

const INDEX_SHAPES = `
  select i.relname as index, t.relname as table, x.indpred is not null as partial,
         array_to_string(array(
           select a.attname from unnest(x.indkey::int2[]) with ordinality as k(attnum, n)
             join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.n), ',') as columns
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    join pg_namespace ns on ns.oid = t.relnamespace
   where ns.nspname = current_schema()`;

describePostgres("PostgreSQL", () =>
  describeQueryPlans("PostgreSQL", async () => {
    const url = await freshDatabase();
    const { store, db } = await openPostgresStore(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    let shapes = new Map<string, IndexShape>();
    return {
      db,
      store,
      context: { rowLocks: true, dataModifyingCtes: true },
      async analyze() {
        await client.query("analyze");
        const { rows } = await client.query<IndexShape & { index: string }>(INDEX_SHAPES);
        shapes = new Map(rows.map((row) => [row.index, row]));
      },
      async plan(query): Promise<Plan> {
        await client.query("begin");
        try {
          await client.query("set local enable_seqscan = off");
          const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
            `explain (format json) ${query.sql}`,
            query.parameters as unknown[],
          );
          const steps = nodes(rows[0]!["QUERY PLAN"][0].Plan);
          const reads: string[] = [];
          for (const step of steps) {
            const shape = step["Index Name"] ? shapes.get(step["Index Name"]) : undefined;
            if (step["Node Type"] === "Seq Scan") reads.push(String(step["Relation Name"]));
            else if (shape === undefined) continue;
            else if (shape.partial) reads.push(`${shape.table}(${shape.columns}) partial`);
            else reads.push(`${shape.table}(${shape.columns})${step["Index Cond"] ? "" : " whole"}`);
          }
          const sorts = steps.some((step) => /Sort$/.test(step["Node Type"]));
          return { reads, sorts };
        } finally {
          await client.query("rollback");
        }
      },
      async close() {
        await client.end();
        await store.close();
      },
    };
  }),
);
