import { describe, expect, it } from "vitest";
import { fakeDns } from "../../test/support/dns.js";
import { ssrfTargets } from "../../test/support/ssrf-targets.js";
import { createCallbackUrlValidator, validateCallbackUrl } from "./callback-url.js";

// Names only ever resolved here, never connected to.
const dns = () =>
  fakeDns({
    "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "rebind.test": ["127.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "mixed.test": ["93.184.216.34", "10.0.0.1"],
    "v6private.test": ["fd00::1"],
    "mapped.test": ["::ffff:127.0.0.1"],
  });

describe("validateCallbackUrl without the development flag", () => {
  it.each(ssrfTargets.map((target) => [target.url, target.reason] as const))(
    "refuses %s",
    async (url, reason) => {
      const verdict = await validateCallbackUrl(url, { allowInsecure: false, resolve: dns().resolve });
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.reason).toContain(reason);
    },
  );

  it.each([
    ["https://mixed.test/hook", "resolves to a non-public address (10.0.0.1, private)"],
    ["https://metadata.test/", "resolves to a non-public address (169.254.169.254, metadata)"],
    ["https://v6private.test/", "(fd00::1, unique-local)"],
    ["https://mapped.test/", "(::ffff:127.0.0.1, loopback)"],
    ["https://nowhere.test/", "callback_url host nowhere.test does not resolve"],
    ["https://user:secret@hooks.example.com/", "must not contain credentials"],
    ["https://user@hooks.example.com/", "must not contain credentials"],
    ["https://hooks.example.com/#frag", "must not contain a fragment"],
    ["https://hooks.example.com\\@127.0.0.1/", "must not contain backslashes"],
    [" https://hooks.example.com/", "whitespace or control characters"],
    ["https://hooks.exa\tmple.com/", "whitespace or control characters"],
    ["https://hooks.example.com/\n", "whitespace or control characters"],
    ["ftp://hooks.example.com/", "must use https"],
    ["javascript:alert(1)", "must use https"],
    ["file:///etc/passwd", "must use https"],
    ["/relative/hook", "must be an absolute URL"],
    ["https://hooks.example.com:99999/", "must be an absolute URL"],
    ["https://hooks.example.com:0/", "port must not be 0"],
    [`https://hooks.example.com/${"a".repeat(2048)}`, "at most 2048 characters"],
    ["https://LOCALHOST/", "host localhost is not a public address"],
    ["https://localhost./", "host localhost. is not a public address"],
    ["https://api.localhost/", "host api.localhost is not a public address"],
    ["https://[fe80::1%25eth0]/", "must be an absolute URL"],
    ["https://192.168.0.1.nip.io.localhost/", "is not a public address"],
  ])("refuses %j: %s", async (url, reason) => {
    const verdict = await validateCallbackUrl(url, { allowInsecure: false, resolve: dns().resolve });
    expect(verdict).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  it("refuses when DNS does not answer in time", async () => {
    const verdict = await validateCallbackUrl("https://slow.test/", {
      allowInsecure: false,
      resolve: () => new Promise(() => {}),
      resolveTimeoutMs: 30,
    });
    expect(verdict).toEqual({ ok: false, reason: "callback_url host slow.test does not resolve" });
  });

  it.each([
    "https://hooks.example.com/genvideo?account=42",
    "https://hooks.example.com:8443/genvideo",
    "https://HOOKS.example.com/",
    "https://8.8.8.8/hook",
    "https://[2606:4700::1111]/hook",
    "https://[::ffff:8.8.8.8]/hook",
  ])("accepts %s", async (url) => {
    const fake = dns();
    expect(await validateCallbackUrl(url, { allowInsecure: false, resolve: fake.resolve })).toEqual({
      ok: true,
    });
  });

  it("does not resolve IP literals, and resolves names once", async () => {
    const fake = dns();
    await validateCallbackUrl("https://8.8.8.8/", { allowInsecure: false, resolve: fake.resolve });
    await validateCallbackUrl("https://hooks.example.com/", { allowInsecure: false, resolve: fake.resolve });
    expect(fake.questions).toEqual(["hooks.example.com"]);
  });

  it("gives the engine a one-argument validator with the policy bound", async () => {
    const validate = createCallbackUrlValidator({ allowInsecure: false, resolve: dns().resolve });
    expect(await validate("https://hooks.example.com/")).toEqual({ ok: true });
    expect(await validate("http://hooks.example.com/")).toEqual({
      ok: false,
      reason: "callback_url must use https",
    });
  });
});

describe("validateCallbackUrl with GENVIDEO_ALLOW_INSECURE_CALLBACKS", () => {
  it.each([
    "http://127.0.0.1:3000/hook",
    "http://localhost:3000/hook",
    "https://localhost/hook",
    "http://[::1]:3000/",
    "http://10.0.0.1/",
    "http://host.docker.internal:3000/",
  ])("accepts %s without resolving it", async (url) => {
    const fake = dns();
    expect(await validateCallbackUrl(url, { allowInsecure: true, resolve: fake.resolve })).toEqual({
      ok: true,
    });
    expect(fake.questions).toEqual([]);
  });

  it.each([
    ["ftp://127.0.0.1/", "must use http or https"],
    ["http://user:pass@127.0.0.1/", "must not contain credentials"],
  ])("still refuses %s", async (url, reason) => {
    const verdict = await validateCallbackUrl(url, { allowInsecure: true });
    expect(verdict).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });
});
