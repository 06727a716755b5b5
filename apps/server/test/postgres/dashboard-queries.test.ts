// The dashboard's reads on PostgreSQL, the same promises as on SQLite (test/dashboard/dashboard-queries.test.ts).
import { openPostgresStore } from "../../src/store/postgres-store.js";
import { describeDashboardQueries } from "../support/dashboard-queries-contract.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";

describePostgres("PostgreSQL", () =>
  describeDashboardQueries("PostgreSQL", async () => openPostgresStore(await freshDatabase())),
);
