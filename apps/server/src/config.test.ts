import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("defaults to loopback port 8787", () => {
    expect(loadConfig({})).toEqual({ port: 8787, host: "127.0.0.1" });
  });

  it("names the setting that is wrong", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "70000" })).toThrow(
      /^PORT must be a whole number from 0 to 65535, got "70000"$/,
    );
  });
});
