import { describe, expect, it } from "vitest";
import { expectedDatabaseFailure } from "./database-failure.js";

describe("expectedDatabaseFailure", () => {
  it("names a session PostgreSQL ended for idling in a transaction", () => {
    const error = Object.assign(new Error("terminating connection due to idle-in-transaction timeout"), {
      code: "25P03",
    });
    expect(expectedDatabaseFailure(error)).toMatch(
      /^PostgreSQL ended a session .*idle_in_transaction_session_timeout/,
    );
  });

  it("calls a lost path or server unreachable", () => {
    for (const error of [
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout expired"),
      new Error("no answer from PostgreSQL: the network path to it is down"),
    ])
      expect(expectedDatabaseFailure(error)).toMatch(/^PostgreSQL unreachable: /);
  });

  it("leaves anything else to be logged as an error", () => {
    expect(expectedDatabaseFailure(new TypeError("cannot read properties of undefined"))).toBeUndefined();
    expect(
      expectedDatabaseFailure(Object.assign(new Error("duplicate key"), { code: "23505" })),
    ).toBeUndefined();
  });
});
