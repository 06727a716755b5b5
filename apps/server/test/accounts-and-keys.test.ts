/**
 * What the server adds to accounts and keys, over HTTP and the CLI against the
 * same running server: isolation between accounts, idempotent creates, rate
 * limits, and a key revoked by the CLI refused on its next request.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { createTask, credits, getStatus } from "./support/api.js";
import { removeDataDir, runCli, runCliInProcess, startServer } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({
  env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_RATE_LIMITS: "off", GENVIDEO_TIME_SCALE: "60" },
});

async function cli(...args: string[]) {
  const result = await runCliInProcess(args, server.dataDir);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** The key a `keys create` or `keys rotate` printed, on its own line. */
function printedKey(stdout: string): string {
  const lines = stdout.split("\n").filter((line) => /^gen_sk_[0-9A-Za-z]{38}$/.test(line));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

/** The id of the key a `keys create` or `keys rotate` just made, from its first line. */
function printedKeyId(stdout: string): string {
  const match = /^Created API key (\S+) /m.exec(stdout);
  expect(match).not.toBeNull();
  return match![1]!;
}

describe("accounts", () => {
  it("keeps each account's tasks to itself (404 to another account)", async () => {
    await cli("accounts", "create", "bob", "--credits", "10");
    const bobKey = printedKey(await cli("keys", "create", "--account", "bob"));
    expect(await credits(server, bobKey)).toBe(10);

    const mine = await createTask(server, { prompt: "default's task" });
    const bobs = await createTask(server, { prompt: "bob's task" }, bobKey);
    for (const [taskId, key] of [
      [mine, bobKey],
      [bobs, undefined],
    ] as const) {
      const response = await server.api(`/api/gen/status/${taskId}`, { key });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: "Not Found", code: "NOT_FOUND" });
    }
    expect((await getStatus(server, bobs, bobKey)).task_id).toBe(bobs);
    expect(await credits(server, bobKey)).toBe(9);
  });

  it("credits an account from the CLI, visible to the API at once", async () => {
    await cli("accounts", "create", "carol");
    const key = printedKey(await cli("keys", "create", "--account", "carol"));
    expect(await credits(server, key)).toBe(0);
    expect(await cli("accounts", "credit", "carol", "25")).toContain("25 credits");
    expect(await credits(server, key)).toBe(25);
    expect(await cli("accounts", "show", "carol")).toMatch(/Credits: 25[\s\S]*grant\s+\+25/);
  });
});

describe("API keys", () => {
  it("refuses a key revoked with the CLI on its very next request", async () => {
    const created = await cli("keys", "create");
    const key = printedKey(created);
    expect((await server.api("/api/gen/account", { key })).status).toBe(200);
    const newest = { id: printedKeyId(created) };
    // A separate CLI process, as an operator would run it next to the server.
    const revoked = await runCli(["keys", "revoke", newest.id], server.dataDir);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain("Revoked");
    const refused = await server.api("/api/gen/account", { key });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: "Unauthorized", message: "Invalid API key" });
  });

  it("rotates a key: the new one works and the old one still does during the overlap", async () => {
    const created = await cli("keys", "create");
    const oldKey = printedKey(created);
    const rotated = await cli("keys", "rotate", printedKeyId(created), "--overlap", "24h");
    const newKey = printedKey(rotated);
    expect((await server.api("/api/gen/account", { key: newKey })).status).toBe(200);
    expect((await server.api("/api/gen/account", { key: oldKey })).status).toBe(200);
    const noOverlap = printedKey(await cli("keys", "rotate", printedKeyId(rotated), "--overlap", "0"));
    expect((await server.api("/api/gen/account", { key: noOverlap })).status).toBe(200);
    expect((await server.api("/api/gen/account", { key: newKey })).status).toBe(401);
  });
});

describe("idempotency", () => {
  it("returns the first response for the same key and body, without a second charge", async () => {
    const before = await credits(server);
    const body = { prompt: "exactly once" };
    const headers = { "idempotency-key": "order-42" };
    const first = await server.api("/api/gen/generate", { json: body, headers });
    const again = await server.api("/api/gen/generate", { json: { ...body }, headers });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(await first.json());
    expect(await credits(server)).toBe(before - 1);
  });

  it("answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body", async () => {
    const headers = { "idempotency-key": "order-43" };
    expect((await server.api("/api/gen/generate", { json: { prompt: "one" }, headers })).status).toBe(200);
    const other = await server.api("/api/gen/generate", { json: { prompt: "two" }, headers });
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({
      success: false,
      error: "Unprocessable Content",
      code: "IDEMPOTENCY_KEY_REUSED",
    });
  });

  it("answers 409 IDEMPOTENCY_IN_PROGRESS while another request with the key is still running", async () => {
    // A create takes milliseconds here, so the request "still running" is one
    // that a second server process on the same database has just claimed.
    const body = { prompt: "claimed elsewhere" };
    const accountId = ((await (await server.api("/api/gen/account")).json()) as { account_id: string })
      .account_id;
    const { created_at: now } = await getStatus(
      server,
      await createTask(server, { prompt: "what time is it" }),
    );
    const database = new DatabaseSync(join(server.dataDir, "genvideo.db"));
    database.exec("PRAGMA busy_timeout = 5000");
    database
      .prepare(
        "insert into idempotency_keys (account_id, key, request_hash, state, created_at, expires_at) values (?, ?, ?, 'in_progress', ?, ?)",
      )
      .run(
        accountId,
        "order-44",
        createHash("sha256").update(JSON.stringify(body)).digest("hex"),
        Date.parse(now as string),
        Date.parse(now as string) + 86_400_000,
      );
    database.close();
    const before = await credits(server);
    const duplicate = await server.api("/api/gen/generate", {
      json: body,
      headers: { "idempotency-key": "order-44" },
    });
    expect(duplicate.status).toBe(409);
    expect(await duplicate.json()).toMatchObject({
      success: false,
      error: "Conflict",
      code: "IDEMPOTENCY_IN_PROGRESS",
    });
    expect(await credits(server)).toBe(before);
  });

  it("never creates two tasks for concurrent duplicates", async () => {
    const before = await credits(server);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.api("/api/gen/generate", {
          json: { prompt: "racing" },
          headers: { "idempotency-key": "order-45" },
        }),
      ),
    );
    expect(responses.every((response) => response.status === 200 || response.status === 409)).toBe(true);
    const bodies = await Promise.all(
      responses.map((response) => response.json() as Promise<Record<string, unknown>>),
    );
    expect(new Set(bodies.filter((b) => b.success === true).map((b) => b.task_id)).size).toBe(1);
    expect(await credits(server)).toBe(before - 1);
  });
});

describe("rate limits", () => {
  it("answers 429 RATE_LIMITED with Retry-After once a key's bucket is empty", async () => {
    const limited = await startServer({
      env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_RATE_LIMITS: "creates=2,reads=3" },
    });
    try {
      const reads = [];
      for (let index = 0; index < 4; index++) reads.push(await limited.api("/api/gen/account"));
      expect(reads.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
      const refused = reads[3]!;
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("ratelimit-policy")).toBeTruthy();
      expect(await refused.json()).toMatchObject({ error: "Too Many Requests", code: "RATE_LIMITED" });

      const creates = [];
      for (let index = 0; index < 3; index++)
        creates.push(await limited.api("/api/gen/generate", { json: { prompt: `limited ${index}` } }));
      expect(creates.map((r) => r.status)).toEqual([200, 200, 429]);
      expect((await creates[2]!.json()) as object).toMatchObject({ success: false, code: "RATE_LIMITED" });
    } finally {
      expect(await limited.stop()).toBe(0);
      removeDataDir(limited.dataDir);
    }
  });
});

describe("the CLI's keys, first hour", () => {
  it("creates a key that expires after --expires of service time, and lists keys with ids and names", async () => {
    const created = await cli("keys", "create", "--name", "nightly job", "--expires", "30d");
    const key = printedKey(created);
    const id = printedKeyId(created);
    const expires = /^It expires (\S+) \(service time\)\.$/m.exec(created);
    expect(expires).not.toBeNull();
    const expiresIn = Date.parse(expires![1]!) - Date.now();
    // Service time runs 60x here and may be ahead of the wall clock: at least 30 days ahead, not a year.
    expect(expiresIn).toBeGreaterThan(29 * 86_400_000);
    expect(expiresIn).toBeLessThan(365 * 86_400_000);
    expect(await credits(server, key)).toBeGreaterThanOrEqual(0);

    const listed = await cli("keys", "list", "--account", "default");
    const row = listed.split("\n").find((line) => line.startsWith(id));
    const [rowId, name, prefix, account, state] = row!.split(/\s{2,}/);
    expect({ rowId, name, account, state }).toEqual({
      rowId: id,
      name: "nightly job",
      account: "default",
      state: "active",
    });
    expect(key.startsWith(prefix!.replace("…", ""))).toBe(true);
    expect(listed.split("\n")[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+ACCOUNT\s+STATE\s+CREATED\s+EXPIRES$/);
    expect(listed).toMatch(/\s+first start\s+/);
  });

  it("refuses an --expires that is not a positive duration, with usage exit code 2", async () => {
    for (const expires of ["0", "soon", "1x"]) {
      const result = await runCliInProcess(["keys", "create", "--expires", expires], server.dataDir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--expires must be a duration like 30d, 12h or 90m, got "${expires}"`);
    }
  });

  it("suggests the nearest command for an unknown one, as a command that runs", async () => {
    const result = await runCliInProcess(["key", "list"], server.dataDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'genvideo-server: unknown command "key"; did you mean: genvideo-server keys list\nRun genvideo-server --help for usage.\n',
    );
    expect((await runCliInProcess(["keys", "list"], server.dataDir)).code).toBe(0);
  });

  it("suggests the nearest action below a command, and the nearest option, in the CLI's words", async () => {
    const cases: [string[], string][] = [
      [
        ["webhooks", "chek", "http://127.0.0.1:9/hook"],
        'webhooks takes check, list, redeliver or rotate-secret, got "chek"; did you mean: genvideo-server webhooks check http://127.0.0.1:9/hook',
      ],
      [
        ["keys", "lst"],
        'keys takes create, list, revoke or rotate, got "lst"; did you mean: genvideo-server keys list',
      ],
      [["keys", "create", "--expire", "30d"], "unknown option --expire; did you mean --expires?"],
      [["keys", "create", "--expires"], "--expires needs a value (--expires <value>)"],
      [["keys", "list", "--json=yes"], "--json takes no value"],
      [["keys", "list", "--frobnicate"], "unknown option --frobnicate"],
    ];
    for (const [args, message] of cases) {
      const result = await runCliInProcess(args, server.dataDir);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toBe(`genvideo-server: ${message}\nRun genvideo-server --help for usage.\n`);
    }
  });
});
