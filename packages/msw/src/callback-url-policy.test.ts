import { describe, expect, it } from "vitest";
import { checkCallbackUrl } from "./callback-url-policy.js";

describe("checkCallbackUrl (the server's rules without DNS)", () => {
  it.each([
    "https://shop.example.test/hooks/genvideo",
    "https://93.184.215.14/hook",
    "https://[2606:4700::1111]/hook",
    "https://hooks.test:8443/a?b=c",
  ])("accepts %s", async (url) => {
    expect(await checkCallbackUrl(url, false)).toEqual({ ok: true });
  });

  it.each([
    ["http://shop.test/hook", "callback_url must use https"],
    ["not a url", "callback_url must not contain whitespace or control characters"],
    ["shop.test/hook", "callback_url must be an absolute URL"],
    ["https://shop.test\\hook", "callback_url must not contain backslashes"],
    ["https://user:pw@shop.test/hook", "callback_url must not contain credentials"],
    ["https://shop.test/hook#part", "callback_url must not contain a fragment"],
    ["https://shop.test:0/hook", "callback_url port must not be 0"],
    [`https://shop.test/${"a".repeat(2048)}`, "callback_url must be at most 2048 characters"],
    ["https://127.0.0.1/hook", "callback_url host 127.0.0.1 is not a public address (loopback)"],
    ["https://127.1/hook", "callback_url host 127.0.0.1 is not a public address (loopback)"],
    ["https://10.0.0.8/hook", "callback_url host 10.0.0.8 is not a public address (private)"],
    ["https://169.254.169.254/hook", "callback_url host 169.254.169.254 is not a public address (metadata)"],
    ["https://[::1]/hook", "callback_url host ::1 is not a public address (loopback)"],
    ["https://[fd00::1]/hook", "callback_url host fd00::1 is not a public address (unique-local)"],
    ["https://api.localhost/hook", "callback_url host api.localhost is not a public address (loopback)"],
  ])("refuses %s: %s", async (url, reason) => {
    expect(await checkCallbackUrl(url, false)).toEqual({ ok: false, reason });
  });

  it("with allowInsecure, accepts http and local targets but no other scheme", async () => {
    expect(await checkCallbackUrl("http://localhost:3000/hook", true)).toEqual({ ok: true });
    expect(await checkCallbackUrl("https://127.0.0.1/hook", true)).toEqual({ ok: true });
    expect(await checkCallbackUrl("ftp://shop.test/hook", true)).toEqual({
      ok: false,
      reason: "callback_url must use http or https",
    });
  });
});
