import { CompiledQuery } from "kysely";
import { describe, expect, it } from "vitest";
import { executeOnSqlite, firstOnSqlite } from "./node-sqlite-dialect.js";
import { SqliteConnection } from "./sqlite-connection.js";

describe("SqliteConnection rows", () => {
  it("gives rows as objects keyed by column name, from first and from all", () => {
    const connection = new SqliteConnection(":memory:");
    connection.database.exec("create table t (id text, n integer, note text)");
    connection.database.exec("insert into t values ('a', 1, null), ('b', 2, 'two')");
    const all = executeOnSqlite(connection, CompiledQuery.raw("select * from t order by id"));
    expect(all.rows).toEqual([
      { id: "a", n: 1, note: null },
      { id: "b", n: 2, note: "two" },
    ]);
    expect(firstOnSqlite(connection, CompiledQuery.raw("select n, id from t where id = ?", ["b"]))).toEqual({
      n: 2,
      id: "b",
    });
    expect(
      firstOnSqlite(connection, CompiledQuery.raw("select * from t where id = ?", ["z"])),
    ).toBeUndefined();
    connection.close();
  });

  it("keeps odd column names as plain properties", () => {
    const connection = new SqliteConnection(":memory:");
    const row = firstOnSqlite<Record<string, unknown>>(
      connection,
      CompiledQuery.raw(`select 1 as "__proto__", 2 as "count(*)", 3 as "a""b"`),
    );
    expect(Object.hasOwn(row!, "__proto__")).toBe(true);
    expect(Object.entries(row!)).toEqual([
      ["__proto__", 1],
      ["count(*)", 2],
      ['a"b', 3],
    ]);
    connection.close();
  });
});
