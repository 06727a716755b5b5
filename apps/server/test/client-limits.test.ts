/**
 * The limits that count per client, over real HTTP: failed API
 * authentications and dashboard sign-ins. Behind a proxy (here the test
 * itself, on loopback, named in GENVIDEO_TRUSTED_PROXIES) the client is what
 * `X-Forwarded-For` says; without one it is the connection's peer, and the
 * header is not believed. One client spending its failures never holds back
 * another (docs/api.md#authentication, docs/operating.md#security).
 */
import { AUTH_ERROR_MESSAGES } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { postSignIn, printedSignInLink } from "./support/dashboard.js";
import { runCliInProcess, TEST_API_KEY } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const ATTACKER = "203.0.113.7";
const NEIGHBOUR = "198.51.100.9";
const WRONG_KEY = "not_the_key_0123456789abcdefghij";
const invalidKey = { error: "Unauthorized", message: AUTH_ERROR_MESSAGES.invalidApiKey };

const behindProxy = useServer({ env: { GENVIDEO_TRUSTED_PROXIES: "loopback" } });

function account(server: typeof behindProxy, key: string, forwardedFor?: string) {
  return fetch(new URL("/api/gen/account", server.url), {
    headers: {
      authorization: `Bearer ${key}`,
      ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
    },
  });
}

/** `count` requests with `send`, `width` at a time; their statuses (bodies read, so connections are reused). */
async function statuses(count: number, width: number, send: (index: number) => Promise<Response>) {
  const seen: Response[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const response = await send(next++);
        await response.arrayBuffer();
        seen.push(response);
      }
    }),
  );
  return seen;
}

describe("failed API authentications behind a trusted proxy", () => {
  it("throttles 3 000 wrong keys from one client with 429 RATE_LIMITED, and no one else", async () => {
    const started = performance.now();
    const answers = await statuses(3_000, 25, () => account(behindProxy, WRONG_KEY, ATTACKER));
    const elapsedSeconds = (performance.now() - started) / 1000;
    const unauthorized = answers.filter((response) => response.status === 401).length;
    const limited = answers.filter((response) => response.status === 429);
    // 20 at once (plus those already in flight when the first failures came back), then one
    // back every 3 s while they ran.
    expect(unauthorized).toBeGreaterThanOrEqual(20);
    expect(unauthorized).toBeLessThanOrEqual(20 + 25 + Math.ceil(elapsedSeconds / 3));
    expect(limited.length).toBe(3_000 - unauthorized);

    const refused = await account(behindProxy, WRONG_KEY, ATTACKER);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3);
    expect(await refused.json()).toEqual({
      error: "Too Many Requests",
      code: "RATE_LIMITED",
      message: expect.stringMatching(/^Too many failed authentications from this address; retry in \d+ s\.$/),
    });
    // A valid key not seen lately waits too on that client: a 200 among 429s would answer every guess.
    expect((await account(behindProxy, TEST_API_KEY, ATTACKER)).status).toBe(429);

    // Another client, through the same proxy: its valid key works, and its mistakes are plain 401s.
    const neighbour = await account(behindProxy, TEST_API_KEY, NEIGHBOUR);
    expect(neighbour.status).toBe(200);
    expect(await neighbour.json()).toMatchObject({ name: "default" });
    const typo = await account(behindProxy, WRONG_KEY, NEIGHBOUR);
    expect(typo.status).toBe(401);
    expect(await typo.json()).toEqual(invalidKey);
    expect(typo.headers.get("www-authenticate")).toBe('Bearer realm="genvideo"');
  });

  it("believes X-Forwarded-For from the trusted peer only up to it: a client's own entries are ignored", async () => {
    const client = "192.0.2.44";
    const answers = await statuses(30, 1, (index) =>
      // The client wrote a new address of its own each time; the proxy appended the real one.
      account(behindProxy, WRONG_KEY, `10.9.${index}.1, ${client}`),
    );
    expect(answers.map((response) => response.status)).toEqual([
      ...Array.from({ length: 20 }, () => 401),
      ...Array.from({ length: 10 }, () => 429),
    ]);
  });
});

describe("dashboard sign-in behind a trusted proxy", () => {
  function signIn(token: string, forwardedFor: string) {
    return fetch(new URL("/dashboard/sign-in", behindProxy.url), {
      method: "POST",
      redirect: "manual",
      headers: {
        origin: new URL(behindProxy.url).origin,
        "content-type": "application/x-www-form-urlencoded",
        "x-forwarded-for": forwardedFor,
      },
      body: new URLSearchParams({ token }),
    });
  }

  it("twelve bad tokens from one client refuse that client, not another", async () => {
    const bad: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      const response = await signIn("x".repeat(43), "203.0.113.99");
      await response.arrayBuffer();
      bad.push(response.status);
    }
    expect(bad).toEqual([...Array.from({ length: 10 }, () => 400), 429, 429]);

    const link = await runCliInProcess(["dashboard", "link", "--account", "default"], behindProxy.dataDir);
    expect(link.code, link.stderr).toBe(0);
    const token = new URL(printedSignInLink(link.stdout)).searchParams.get("token") ?? "";
    const other = await signIn(token, "198.51.100.200");
    expect(other.status).toBe(303);
    expect(other.headers.get("location")).toBe("/dashboard/tasks");
  });
});

describe("without trusted proxies", () => {
  const direct = useServer();

  it("the connection's peer is the client: X-Forwarded-For changes nothing", async () => {
    const answers = await statuses(25, 1, (index) => account(direct, WRONG_KEY, `203.0.113.${index}`));
    expect(answers.map((response) => response.status)).toEqual([
      ...Array.from({ length: 20 }, () => 401),
      ...Array.from({ length: 5 }, () => 429),
    ]);
    // The dashboard's limit keys on the same client.
    const refused = await postSignIn(direct, `${direct.url}/dashboard/sign-in?token=${"y".repeat(43)}`);
    expect(refused.status).toBe(400);
  });
});
