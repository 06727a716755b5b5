import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createLogger } from "../logging/logger.js";
import { engineSettings } from "./engine-settings.js";

const quiet = createLogger("error", { write: () => undefined });

/** The engine's settings for a server started with `env` at 60x service time. */
function settingsFor(env: Record<string, string>) {
  const config = loadConfig({ GENVIDEO_TIME_SCALE: "60", ...env }, "/srv/genvideo");
  return engineSettings(config, "http://127.0.0.1:8787", quiet, undefined, () => undefined);
}

describe("engineSettings", () => {
  // A worker that ticks back to back (a stream of creates, a queue being drained) sweeps for work it
  // does not hold every 250 ms of real time and reads the outbox every 50 ms, on either database:
  // on every tick they cost SQLite 18 µs of CPU per create.
  it.each([
    ["SQLite", {}],
    ["PostgreSQL", { GENVIDEO_DATABASE_URL: "postgres://genvideo@127.0.0.1:5432/genvideo" }],
  ])("spaces sweeps and outbox reads in real time on %s", (_name, env) => {
    const settings = settingsFor(env);
    expect(settings.sweepIntervalMs).toBe(250 * 60);
    expect(settings.webhooks?.claimIntervalMs).toBe(50 * 60);
  });

  it("refills free render slots without a tick on PostgreSQL only, where a claim is a round trip", () => {
    expect(settingsFor({}).refillSlots).toBe(false);
    expect(
      settingsFor({ GENVIDEO_DATABASE_URL: "postgres://genvideo@127.0.0.1:5432/genvideo" }).refillSlots,
    ).toBe(true);
  });
});
