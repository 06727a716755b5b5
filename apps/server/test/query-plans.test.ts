// The plans of the queries that could grow with history, on SQLite (test/support/query-plans-contract.ts).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { openSqliteStore } from "../src/store/sqlite-store.js";
import { describeQueryPlans, type Plan } from "./support/query-plans-contract.js";
import { temporaryDataDir } from "./support/server-process.js";

interface IndexShape {
  table: string;
  columns: string;
  partial: boolean;
}

/** Every index of the database by name: its table, its columns in order, whether it is partial. */
function indexShapes(database: DatabaseSync): Map<string, IndexShape> {
  const shapes = new Map<string, IndexShape>();
  const tables = database.prepare("select name from sqlite_schema where type = 'table'").all();
  for (const { name: table } of tables) {
    for (const index of database
      .prepare("select name, partial from pragma_index_list(?)")
      .all(String(table))) {
      const columns = database
        .prepare("select name from pragma_index_info(?) order by seqno")
        .all(String(index.name))
        .map((column) => column.name)
        .join(",");
      shapes.set(String(index.name), { table: String(table), columns, partial: index.partial === 1 });
    }
  }
  return shapes;
}

describeQueryPlans("SQLite", async () => {
  const directory = temporaryDataDir();
  const path = join(directory, "plans.db");
  const { store, db } = await openSqliteStore(path);
  // A connection of its own for EXPLAIN, on the same file.
  const database = new DatabaseSync(path);
  let shapes = new Map<string, IndexShape>();
  return {
    db,
    store,
    context: { rowLocks: false, loadRequest: () => undefined },
    async analyze() {
      // The server never runs ANALYZE (nor PRAGMA optimize): its queries are planned without
      // statistics, as here. With them SQLite would choose differently, and hide what a server sees.
      shapes = indexShapes(database);
    },
    async plan(query): Promise<Plan> {
      const tables = new Set([...shapes.values()].map((shape) => shape.table));
      const steps = database
        .prepare(`explain query plan ${query.sql}`)
        .all(...(query.parameters as SQLInputValue[]))
        .map((row) => String(row.detail));
      const reads: string[] = [];
      for (const step of steps) {
        const read = /^(SCAN|SEARCH) (\w+)(?: AS \w+)?(?: USING (?:COVERING )?INDEX (\w+))?/.exec(step);
        if (!read || !tables.has(read[2]!)) continue;
        const [, how, table, index] = read;
        const shape = index ? shapes.get(index) : undefined;
        if (!shape) reads.push(String(table));
        else if (shape.partial) reads.push(`${table}(${shape.columns}) partial`);
        else reads.push(`${table}(${shape.columns})${how === "SEARCH" ? "" : " whole"}`);
      }
      return { reads, sorts: steps.some((step) => step.startsWith("USE TEMP B-TREE")) };
    },
    async close() {
      database.close();
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});
