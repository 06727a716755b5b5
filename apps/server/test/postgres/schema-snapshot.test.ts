// The schema every migration together builds on PostgreSQL, as a file under version control: a
// migration edited after it shipped (databases that ran the old one keep the old schema) shows
// here as a diff. A new migration updates the file with `vitest run -u`, in the same commit.
import pg from "pg";
import { expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";

/** Tables with their persistence and storage options, columns, constraints and indexes, in a stable order. */
const SCHEMA_QUERY = `
  select 'table ' || c.relname || case c.relpersistence when 'u' then ' unlogged' else '' end
         || coalesce(' with (' || array_to_string(c.reloptions, ', ') || ')', '') as line,
         c.relname as tbl, 0 as kind, '' as item
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind = 'r'
  union all
  select '  column ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || case when a.attnotnull then ' not null' else '' end
         || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''),
         c.relname, 1, lpad(a.attnum::text, 4, '0')
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
   where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
  union all
  select '  constraint ' || co.conname || ' ' || pg_get_constraintdef(co.oid), c.relname, 2, co.conname
    from pg_constraint co join pg_class c on c.oid = co.conrelid join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public'
  union all
  select '  ' || indexdef, tablename, 3, indexname from pg_indexes where schemaname = 'public'
  order by tbl, kind, item`;

describePostgres("PostgreSQL schema", () => {
  it("the migrations build the PostgreSQL schema on record", async () => {
    const url = await freshDatabase();
    const { store } = await openPostgresStore(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ line: string }>(SCHEMA_QUERY);
      const schema = `${rows.map((row) => row.line).join("\n")}\n`;
      await expect(schema).toMatchFileSnapshot("./__snapshots__/schema.postgres.txt");
    } finally {
      await client.end();
      await store.close();
    }
  });
});
