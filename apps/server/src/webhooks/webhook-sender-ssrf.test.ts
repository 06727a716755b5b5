/**
 * The callback target policy at delivery time, development flag off: every
 * refused target is refused before a packet leaves, on the address the
 * connection would use. A sentinel on `net.Socket#connect` refuses any
 * non-loopback IP outright, so a regression here can never send traffic off
 * the machine.
 */
import type { LookupAddress } from "node:dns";
import { createRequire } from "node:module";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fakeDns } from "../../test/support/dns.js";
import { answering, startReceiver, type TestReceiver } from "../../test/support/receivers.js";
import { ssrfTargets } from "../../test/support/ssrf-targets.js";
import { validateCallbackUrl } from "./callback-url.js";
import { createGuardedConnector, createGuardedLookup } from "./guarded-connector.js";
import { RefusedAddressError } from "./host-resolver.js";
import { createWebhookSender } from "./webhook-sender.js";

// undici is CommonJS and calls through these module objects, so patching them here reaches it.
const net = createRequire(import.meta.url)("node:net") as typeof import("node:net");
const connectCalls: string[] = [];
const originalConnect = net.Socket.prototype.connect;

beforeAll(() => {
  net.Socket.prototype.connect = function sentinel(this: import("node:net").Socket, ...args: unknown[]) {
    const [first, second] = args;
    const host = typeof first === "object" && first !== null ? (first as { host?: string }).host : second;
    connectCalls.push(String(host));
    if (typeof host === "string" && net.isIP(host) !== 0 && !["127.0.0.1", "::1"].includes(host)) {
      throw new Error(`test sentinel: refused to connect to ${host}`);
    }
    return (originalConnect as (...rest: unknown[]) => import("node:net").Socket).apply(this, args);
  } as typeof originalConnect;
});
afterAll(() => {
  net.Socket.prototype.connect = originalConnect;
});

let receivers: { v4: TestReceiver; v6: TestReceiver };
beforeAll(async () => {
  receivers = {
    v4: await startReceiver(answering(200)),
    v6: await startReceiver(answering(200), { host: "::1" }),
  };
});
afterAll(async () => {
  await receivers.v4.close();
  await receivers.v6.close();
});
afterEach(() => {
  connectCalls.length = 0;
});

const sender = createWebhookSender({
  allowInsecure: false,
  attemptTimeoutMs: 2_000,
  resolve: fakeDns({ "rebind.test": ["127.0.0.1"] }).resolve,
});
afterAll(() => sender.close());

function delivery(url: string) {
  return { url, headers: { "content-type": "application/json" }, body: "{}" };
}

/** The target URL, on the port of the receiver that would catch a leak. */
function onReceiverPort(url: string, loopback: "v4" | "v6" | false): string {
  if (loopback === false) return url;
  const parsed = new URL(url);
  parsed.port = String(receivers[loopback].port);
  return parsed.href;
}

describe("webhook sender without the development flag", () => {
  it.each(ssrfTargets.map((target) => [target.url, target] as const))("refuses %s", async (_url, target) => {
    const outcome = await sender.send(
      delivery(onReceiverPort(target.url, target.loopback)),
      new AbortController().signal,
    );

    expect(outcome).toMatchObject({ ok: false, statusCode: null });
    expect(outcome.ok === false && outcome.error).toContain(target.deliveryError);
    expect(receivers.v4.connections + receivers.v6.connections).toBe(0);
    // IP literals (and non-https URLs) never reach net.connect; names do, and are refused in its lookup.
    const hostname = new URL(target.url).hostname.replace(/^\[|\]$/g, "");
    const refusedBeforeSocket = net.isIP(hostname) !== 0 || target.url.startsWith("http:");
    expect(connectCalls).toEqual(refusedBeforeSocket ? [] : [hostname]);
  });

  it("checks again at delivery: a name that rebinds to loopback after creation is refused", async () => {
    const dns = fakeDns({ "hooks.rebind.test": [["93.184.216.34"], ["127.0.0.1"]] });
    const url = `https://hooks.rebind.test:${receivers.v4.port}/hook`;
    expect(await validateCallbackUrl(url, { allowInsecure: false, resolve: dns.resolve })).toEqual({
      ok: true,
    });

    const rebindingSender = createWebhookSender({ allowInsecure: false, resolve: dns.resolve });
    try {
      const outcome = await rebindingSender.send(delivery(url), new AbortController().signal);
      expect(outcome).toMatchObject({
        ok: false,
        statusCode: null,
        error: "refused address 127.0.0.1 (loopback)",
      });
    } finally {
      await rebindingSender.close();
    }
    expect(dns.questions).toEqual(["hooks.rebind.test", "hooks.rebind.test"]);
    expect(receivers.v4.connections).toBe(0);
  });
});

describe("guarded connector", () => {
  const options = { allowInsecure: false, connectTimeoutMs: 1_000 };

  it("refuses a non-public IP literal without creating a socket", async () => {
    const connect = createGuardedConnector({ ...options, resolve: fakeDns({}).resolve });
    const error = await new Promise<Error | null>((resolve) =>
      connect(
        { hostname: "169.254.169.254", host: "169.254.169.254", protocol: "https:", port: "443" },
        (...[error]) => resolve(error),
      ),
    );
    expect(error).toBeInstanceOf(RefusedAddressError);
    expect(error?.message).toBe("refused address 169.254.169.254 (metadata)");
    expect(connectCalls).toEqual([]);
  });

  function lookup(answers: Record<string, string[]>, hostname: string, all: boolean, family?: 4 | 6) {
    const guarded = createGuardedLookup({ ...options, resolve: fakeDns(answers).resolve });
    return new Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }>(
      (resolve) =>
        guarded(hostname, { all, family }, (error, address, resolvedFamily) =>
          resolve({ error, address, family: resolvedFamily }),
        ),
    );
  }

  it("refuses a name when any of its addresses is not public", async () => {
    const result = await lookup({ "mixed.test": ["93.184.216.34", "10.0.0.1"] }, "mixed.test", true);
    expect(result.error?.message).toBe("refused address 10.0.0.1 (private)");
  });

  it("answers only with the checked addresses, in both lookup shapes", async () => {
    const answers = { "hooks.test": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"] };
    expect(await lookup(answers, "hooks.test", true)).toEqual({
      error: null,
      address: [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:2800:220:1:248:1893:25c8:1946", family: 6 },
      ],
      family: undefined,
    });
    expect(await lookup(answers, "hooks.test", false)).toEqual({
      error: null,
      address: "93.184.216.34",
      family: 4,
    });
    expect(await lookup(answers, "hooks.test", false, 6)).toMatchObject({
      address: "2606:2800:220:1:248:1893:25c8:1946",
    });
  });

  it("refuses localhost names without asking DNS", async () => {
    const result = await lookup({}, "api.localhost", true);
    expect(result.error?.message).toBe("refused host api.localhost (loopback)");
  });
});
