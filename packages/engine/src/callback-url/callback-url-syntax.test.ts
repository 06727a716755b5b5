import { describe, expect, it } from "vitest";
import { createHarness } from "../../test/support/harness.js";
import {
  checkCallbackUrlSyntax,
  isLocalhostName,
  parseCallbackUrl,
  withInsecureCallbacksHint,
} from "./callback-url-syntax.js";

describe("checkCallbackUrlSyntax (the callback rules that need no DNS)", () => {
  it.each([
    "https://shop.example.test/hooks/genvideo",
    "https://93.184.215.14/hook",
    "https://[2606:4700::1111]/hook",
    "https://hooks.test:8443/a?b=c",
  ])("accepts %s", (url) => {
    expect(checkCallbackUrlSyntax(url, false)).toEqual({ ok: true });
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
  ])("refuses %s: %s", (url, reason) => {
    expect(checkCallbackUrlSyntax(url, false)).toEqual({ ok: false, reason });
  });

  it("with allowInsecure, accepts http and local targets but no other scheme", () => {
    expect(checkCallbackUrlSyntax("http://localhost:3000/hook", true)).toEqual({ ok: true });
    expect(checkCallbackUrlSyntax("https://127.0.0.1/hook", true)).toEqual({ ok: true });
    expect(checkCallbackUrlSyntax("ftp://shop.test/hook", true)).toEqual({
      ok: false,
      reason: "callback_url must use http or https",
    });
  });
});

describe("parseCallbackUrl", () => {
  it("checks the WHATWG-normalised host, not the text", () => {
    for (const url of ["https://127.1/", "https://2130706433/", "https://0x7f.1/", "https://0177.0.0.1/"]) {
      expect(parseCallbackUrl(url, false)).toEqual({
        ok: false,
        reason: "callback_url host 127.0.0.1 is not a public address (loopback)",
      });
    }
    expect(parseCallbackUrl("https://[::ffff:127.0.0.1]/", false)).toEqual({
      ok: false,
      reason: "callback_url host ::ffff:7f00:1 is not a public address (loopback)",
    });
  });

  it("returns the host without brackets for the connector", () => {
    const target = parseCallbackUrl("https://[2606:4700::1111]:8443/a?b=c", false);
    expect(target.ok && target.hostname).toBe("2606:4700::1111");
    expect(target.ok && target.url.port).toBe("8443");
  });
});

describe("isLocalhostName", () => {
  it.each([
    ["localhost", true],
    ["LOCALHOST.", true],
    ["api.localhost", true],
    ["localhost.example.com", false],
    ["notlocalhost", false],
  ] as const)("%s: %s", (name, loopback) => {
    expect(isLocalhostName(name)).toBe(loopback);
  });
});

describe("the hint to allow insecure callbacks", () => {
  it.each([
    ["http://127.0.0.1:3000/hooks", "callback_url must use https"],
    ["https://localhost/hooks", "callback_url host localhost is not a public address (loopback)"],
    ["https://10.0.0.7/hooks", "callback_url host 10.0.0.7 is not a public address (private)"],
  ])("is added where insecure callbacks would accept %s", async (url, reason) => {
    // In the terms of the host that answers: the server names its setting, the mock its option.
    const hint = "for local development, start the server with GENVIDEO_ALLOW_INSECURE_CALLBACKS=1";
    const h = await createHarness({ insecureCallbacksHint: hint });
    const response = await h.call("POST", "/api/gen/generate", {
      body: { prompt: "A fox", callback_url: url },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("INVALID_CALLBACK_URL");
    expect(body.message).toBe(`${reason}; ${hint}`);
  });

  it.each(["ftp://hooks.example.com/", "https://user:pw@hooks.example.com/"])(
    "is left out where they would not help (%s)",
    (url) => {
      const verdict = checkCallbackUrlSyntax(url, false) as { reason: string };
      expect(withInsecureCallbacksHint(url, verdict.reason, "a hint")).toBe(verdict.reason);
    },
  );
});
