// The schema every migration together builds on SQLite, as a file under version control: a
// migration edited after it shipped (databases that ran the old one keep the old schema) shows
// here as a diff. A new migration updates the file with `vitest run -u`, in the same commit.
import { sql } from "kysely";
import { expect, it } from "vitest";
import { openSqliteStore } from "./sqlite-store.js";

it("the migrations build the SQLite schema on record", async () => {
  const { db, store } = await openSqliteStore(":memory:");
  try {
    const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
      select type, name, sql from sqlite_schema
      where name not like 'sqlite_%' order by tbl_name, type desc, name`.execute(db);
    const schema = rows.map((row) => `-- ${row.type} ${row.name}\n${row.sql ?? "(automatic)"};\n`).join("\n");
    await expect(schema).toMatchFileSnapshot("./__snapshots__/schema.sqlite.sql");
  } finally {
    await store.close();
  }
});
