import { describe, expect, it } from "vitest";
import { resolveMockOptions } from "./mock-options.js";

describe("the mock's callback URL check", () => {
  it("is the server's form policy, full address classifier included", async () => {
    const { validateCallbackUrl } = resolveMockOptions({}).engineConfig;
    expect(await validateCallbackUrl!("https://shop.example.test/hooks")).toEqual({ ok: true });
    // An IPv4-mapped loopback, which the mock's former partial copy of the rules let through.
    expect(await validateCallbackUrl!("https://[::ffff:127.0.0.1]/hook")).toEqual({
      ok: false,
      reason: "callback_url host ::ffff:7f00:1 is not a public address (loopback)",
    });
  });

  it("with allowInsecureCallbacks, accepts http and local targets", async () => {
    const { validateCallbackUrl } = resolveMockOptions({ allowInsecureCallbacks: true }).engineConfig;
    expect(await validateCallbackUrl!("http://localhost:3000/hook")).toEqual({ ok: true });
    expect(await validateCallbackUrl!("ftp://shop.test/hook")).toEqual({
      ok: false,
      reason: "callback_url must use http or https",
    });
  });
});
