// The store's own run of a statement on a pg connection (src/store/statement-run.ts), against a
// real PostgreSQL: what it sends (a named statement described once per process, parsed once per
// connection), what it makes of the answers, and that a failure leaves the connection usable.
import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { RowShapes, runPooledStatement, runStatement } from "../../src/store/statement-run.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";

const BIGINT = 20;
/** The store's parsers: bigint as a number, the rest as pg parses text. */
const shapesOfStore = () =>
  new RowShapes((oid) => (oid === BIGINT ? Number : pg.types.getTypeParser(oid, "text")));

/** Each message kind the client sends, by the name of pg's method that sends it. */
function countSent(client: pg.Client): Record<string, number> {
  const sent: Record<string, number> = {};
  const connection = (client as unknown as { connection: Record<string, (...args: unknown[]) => unknown> })
    .connection;
  for (const kind of ["parse", "bind", "describe", "execute", "sync"]) {
    const send = connection[kind]!.bind(connection);
    connection[kind] = (...args: unknown[]) => {
      sent[kind] = (sent[kind] ?? 0) + 1;
      return send(...args);
    };
  }
  return sent;
}

describePostgres("a statement run on a pg connection", () => {
  let url: string;
  let client: pg.Client;
  beforeEach(async () => {
    url = await freshDatabase();
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("create table t (id text primary key, n bigint, note text)");
  });
  afterEach(async () => {
    await client.end();
  });

  it("parses a named statement once per connection and describes it once per process", async () => {
    const shapes = shapesOfStore();
    const sent = countSent(client);
    const insert = "insert into t (id, n, note) values ($1, $2, $3)";
    const select = "select id, n, note from t where id = $1";
    await runStatement(client, shapes, "insert", insert, ["a", 1_700_000_000_000, null]);
    const first = await runStatement(client, shapes, "select", select, ["a"]);
    const again = await runStatement(client, shapes, "select", select, ["a"]);
    expect(first.rows).toEqual([{ id: "a", n: 1_700_000_000_000, note: null }]);
    expect(again).toEqual(first);
    expect(sent).toEqual({ parse: 2, bind: 3, describe: 2, execute: 3, sync: 3 });

    // Another connection of the process prepares the statement again, and is not asked to describe it.
    const otherClient = new pg.Client({ connectionString: url });
    await otherClient.connect();
    try {
      const otherSent = countSent(otherClient);
      expect((await runStatement(otherClient, shapes, "select", select, ["a"])).rows).toEqual(first.rows);
      expect(otherSent).toEqual({ parse: 1, bind: 1, execute: 1, sync: 1 });
    } finally {
      await otherClient.end();
    }
  });

  it("counts the rows a statement without a result changed, on every run", async () => {
    const shapes = shapesOfStore();
    await client.query("insert into t (id, n) values ('a', 1), ('b', 1), ('c', 2)");
    const update = "update t set note = $1 where n = $2";
    expect(await runStatement(client, shapes, "update", update, ["x", 1])).toEqual({ rows: [], rowCount: 2 });
    expect(await runStatement(client, shapes, "update", update, ["y", 2])).toEqual({ rows: [], rowCount: 1 });
    const inserted = await runStatement(client, shapes, undefined, "insert into t (id) values ($1), ($2)", [
      "d",
      "e",
    ]);
    expect(inserted.rowCount).toBe(2);
  });

  it("binds flat arrays as array literals, whatever their text holds", async () => {
    const shapes = shapesOfStore();
    const texts = ['quote " inside', "back\\slash", "{brace},comma", "", "NULL"];
    const { rows } = await runStatement<{ value: string | null; n: number | null }>(
      client,
      shapes,
      "unnest",
      "select * from unnest($1::text[], $2::bigint[]) as u(value, n)",
      [
        [...texts, null],
        [1, 2, 3, 4, 5, null],
      ],
    );
    expect(rows.map((row) => row.value)).toEqual([...texts, null]);
    expect(rows.map((row) => row.n)).toEqual([1, 2, 3, 4, 5, null]);
  });

  it("fails with PostgreSQL's error, and the statement and the connection stay usable", async () => {
    const shapes = shapesOfStore();
    const insert = "insert into t (id) values ($1) returning id";
    await runStatement(client, shapes, "insert", insert, ["a"]);
    const runFromHere = async () => await runStatement(client, shapes, "insert", insert, ["a"]);
    const failure = await runFromHere().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "23505" });
    // Its stack leads back to who ran it, not to the socket's read.
    expect((failure as Error).stack).toContain("runFromHere");
    // Still prepared (no "already exists"), still described, still answering.
    expect((await runStatement(client, shapes, "insert", insert, ["b"])).rows).toEqual([{ id: "b" }]);
    // A statement PostgreSQL cannot parse is not prepared: the next run fails the same way.
    for (let run = 0; run < 2; run++)
      await expect(runStatement(client, shapes, "bad", "selec $1", ["x"])).rejects.toMatchObject({
        code: "42601",
      });
    expect((await client.query("select count(*)::int as n from t")).rows).toEqual([{ n: 2 }]);
  });

  it("refuses what it cannot send before sending anything", async () => {
    const shapes = shapesOfStore();
    const sent = countSent(client);
    await runStatement(client, shapes, "named", "select $1::text as v", ["x"]);
    const before = { ...sent };
    await expect(runStatement(client, shapes, "named", "select $1::text as other", ["x"])).rejects.toThrow(
      "prepared statement named was used for a different statement",
    );
    expect(() => runStatement(client, shapes, "named", "select $1::text as v", [{ an: "object" }])).toThrow(
      "a statement value of type object is not supported",
    );
    expect(sent).toEqual(before);
    expect((await runStatement(client, shapes, "named", "select $1::text as v", ["y"])).rows).toEqual([
      { v: "y" },
    ]);
  });

  it("shares the connection's prepared statements with pg's own queries", async () => {
    const shapes = shapesOfStore();
    const text = "select count(*)::int as n from t where n = $1";
    await client.query({ name: "shared", text, values: [1] });
    const sent = countSent(client);
    expect((await runStatement(client, shapes, "shared", text, [1])).rows).toEqual([{ n: 0 }]);
    expect(sent.parse).toBeUndefined();
    await runStatement(client, shapes, "mine", "select $1::int + 1 as m", [1]);
    expect((await client.query({ name: "mine", text: "select $1::int + 1 as m", values: [2] })).rows).toEqual(
      [{ m: 3 }],
    );
  });

  it("on a pool, gives the connection back after a statement, and drops it after a failure", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const shapes = shapesOfStore();
      const insert = "insert into t (id) values ($1) returning id";
      expect((await runPooledStatement(pool, shapes, "insert", insert, ["a"])).rows).toEqual([{ id: "a" }]);
      expect([pool.totalCount, pool.idleCount]).toEqual([1, 1]);
      await expect(runPooledStatement(pool, shapes, "insert", insert, ["a"])).rejects.toMatchObject({
        code: "23505",
      });
      expect(pool.totalCount).toBe(0);
      expect((await runPooledStatement(pool, shapes, "insert", insert, ["b"])).rows).toEqual([{ id: "b" }]);
    } finally {
      await pool.end();
    }
  });
});
