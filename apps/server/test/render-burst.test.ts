/**
 * Compressed time with the real synthetic renderer: at GENVIDEO_TIME_SCALE=600,
 * where the default render slots cannot finish a burst before the deadline,
 * the start log says so once and names the way out; at 60 it says nothing.
 */
import { afterAll, expect, it } from "vitest";
import { type RunningServer, removeDataDir, startServer } from "./support/server-process.js";

const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers) {
    await server.stop();
    removeDataDir(server.dataDir);
  }
});

const capacityWarnings = (server: RunningServer) =>
  server
    .logRecords()
    .filter((record) => record.level === "warn" && record.wayOut === "GENVIDEO_RENDERER=fixture");

it("says nothing at GENVIDEO_TIME_SCALE=60, where the default slots keep up", async () => {
  const server = await startServer({ env: { GENVIDEO_TIME_SCALE: "60", GENVIDEO_RATE_LIMITS: "off" } });
  servers.push(server);
  expect(capacityWarnings(server)).toEqual([]);
});

it("warns once at start when the renders cannot keep up (GENVIDEO_TIME_SCALE=600)", async () => {
  const server = await startServer({ env: { GENVIDEO_TIME_SCALE: "600", GENVIDEO_RATE_LIMITS: "off" } });
  servers.push(server);
  const warnings = capacityWarnings(server);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ timeScale: 600, rendersPerSecond: 2, renderer: "synthetic" });
  expect(String(warnings[0]?.msg)).toContain("GENVIDEO_TIME_SCALE=600");
});
