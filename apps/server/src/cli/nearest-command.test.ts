import { describe, expect, it } from "vitest";
import { nearestCommand } from "./nearest-command.js";

const COMMANDS = ["start", "accounts", "keys", "webhooks", "dashboard"];

describe("nearestCommand", () => {
  it("finds the command a typo or a singular meant", () => {
    expect(nearestCommand("key", COMMANDS)).toBe("keys");
    expect(nearestCommand("account", COMMANDS)).toBe("accounts");
    expect(nearestCommand("webhook", COMMANDS)).toBe("webhooks");
    expect(nearestCommand("strat", COMMANDS)).toBe("start");
    expect(nearestCommand("dashbord", COMMANDS)).toBe("dashboard");
    expect(nearestCommand("Keys", COMMANDS)).toBe("keys");
  });

  it("suggests nothing for a word that is near no command", () => {
    expect(nearestCommand("deploy", COMMANDS)).toBeUndefined();
    expect(nearestCommand("x", COMMANDS)).toBeUndefined();
  });
});
