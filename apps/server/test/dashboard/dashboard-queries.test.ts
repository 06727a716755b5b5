// The dashboard's reads on SQLite; test/postgres/dashboard-queries.test.ts runs the same on PostgreSQL.
import { openSqliteStore } from "../../src/store/sqlite-store.js";
import { describeDashboardQueries } from "../support/dashboard-queries-contract.js";

describeDashboardQueries("SQLite", () => openSqliteStore(":memory:"));
