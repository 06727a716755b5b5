import { describe, expect, it } from "vitest";
import * as root from "./index.js";
import * as browser from "./testing/browser.js";
import * as postgres from "./testing/postgres-cluster.js";
import * as testing from "./testing/reference-server.js";

// The entries' run-time exports, pinned: a change here is a change of the server's library surface.
describe("package entries", () => {
  it("@genvideo/server exports the Node server, its configuration, logger, clock, SQLite store, migrations, renderer and video storage", () => {
    expect(Object.keys(root).sort()).toEqual([
      "ConfigError",
      "LocalVideoStorage",
      "MIGRATIONS",
      "createLogger",
      "createMigrator",
      "createSyntheticRenderer",
      "defaultPublicUrl",
      "invocationDirectory",
      "loadConfig",
      "migrateToLatest",
      "openServiceClock",
      "openSqliteKysely",
      "openSqliteStore",
      "pendingMigrations",
      "startNodeServer",
    ]);
  });
  it("@genvideo/server/testing exports the started server and webhook receiver", () => {
    expect(Object.keys(testing).sort()).toEqual([
      "TEST_API_KEY",
      "TEST_WEBHOOK_SECRET",
      "cliCommand",
      "eventually",
      "freeLoopbackPort",
      "listenOnLoopback",
      "removeDataDir",
      "runCli",
      "runProcess",
      "serveOnLoopback",
      "serverEnvironment",
      "startServer",
      "startWebhookReceiver",
      "temporaryDataDir",
    ]);
  });
  it("@genvideo/server/testing/browser exports the Chromium launcher", () => {
    expect(Object.keys(browser).sort()).toEqual(["CHROMIUM_PATH", "launchChromium"]);
  });
  it("@genvideo/server/testing/postgres exports the throwaway PostgreSQL cluster", () => {
    expect(Object.keys(postgres).sort()).toEqual([
      "POSTGRES_HOW_TO",
      "createDatabaseOn",
      "findPostgresBinaries",
      "postgresForTests",
      "postgresTestable",
      "startPostgresCluster",
    ]);
  });
});
