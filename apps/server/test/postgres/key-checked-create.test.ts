/**
 * A create on PostgreSQL checks its key in its own statement (with the charge,
 * the ledger entry and the task): over HTTP against an `api` process, every
 * refusal still comes in the documented order, a key that is not live writes
 * nothing, and the key's "last used" time and the request log still see the
 * caller. The statement counts themselves are pinned in statement-counts.test.ts.
 */
import pg from "pg";
import { expect, it } from "vitest";
import { createTask } from "../support/api.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import {
  eventually,
  FAST_SERVICE_ENV,
  type RunningServer,
  removeDataDir,
  runCli,
  startServer,
  TEST_API_KEY,
  temporaryDataDir,
} from "../support/server-process.js";
import { useForFile } from "../support/use-server.js";

async function queryOn<Row>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

async function cliOn(url: string, ...args: string[]): Promise<string> {
  const result = await runCli(args, temporaryDataDir(), { GENVIDEO_DATABASE_URL: url });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** A new key of `account` (the default account when none), made with the CLI: the key and its id. */
async function newKeyOn(url: string, account?: string): Promise<{ key: string; id: string }> {
  const printed = await cliOn(url, "keys", "create", ...(account ? ["--account", account] : []));
  const key = /^(gen_sk_[0-9A-Za-z]{38})$/m.exec(printed)?.[1];
  const id = /^Created API key (\S+) /m.exec(printed)?.[1];
  expect([key, id]).toEqual([expect.any(String), expect.any(String)]);
  return { key: key!, id: id! };
}

/** Tasks, ledger entries and the balances of every account: what a refused create must leave alone. */
async function writtenOn(url: string) {
  const [counts] = await queryOn<{ tasks: string; ledger: string }>(
    url,
    "select (select count(*) from tasks) as tasks, (select count(*) from ledger_entries) as ledger",
  );
  const balances = await queryOn<{ id: string; credits: string }>(
    url,
    "select id, credits from accounts order by id",
  );
  return { ...counts, balances };
}

function create(server: RunningServer, key: string, body: unknown, headers: Record<string, string> = {}) {
  return server.api("/api/gen/generate", { key, json: body, headers });
}

async function expectUnauthorized(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get("www-authenticate")).toBe('Bearer realm="genvideo"');
  expect(await response.json()).toEqual({ error: "Unauthorized", message: "Invalid API key" });
}

describePostgres("a create that checks its key in its own statement (PostgreSQL)", () => {
  const api = useForFile({
    name: "the api process",
    start: async () => {
      const url = await freshDatabase();
      const server = await startServer({
        env: { ...FAST_SERVICE_ENV, GENVIDEO_DATABASE_URL: url, GENVIDEO_ROLE: "api" },
      });
      return { server, url };
    },
    stop: async ({ server }) => {
      const code = await server.stop();
      removeDataDir(server.dataDir);
      expect(code).toBe(0);
    },
    hookTimeoutMs: 120_000,
  });
  const query = <Row>(text: string, values: unknown[] = []) => queryOn<Row>(api.url, text, values);
  const cli = (...args: string[]) => cliOn(api.url, ...args);
  const newKey = (account?: string) => newKeyOn(api.url, account);
  const written = () => writtenOn(api.url);

  it("creates with a live key, and refuses a revoked, an expired and an unknown key, writing nothing", async () => {
    const taskId = await createTask(api.server, { prompt: "a lighthouse" });
    expect(await query("select account_id, state from tasks where id = $1", [taskId])).toEqual([
      { account_id: expect.any(String), state: "queued" },
    ]);

    const revoked = await newKey();
    await createTask(api.server, { prompt: "before the revocation" }, revoked.key);
    expect(await cli("keys", "revoke", revoked.id)).toContain("Revoked");
    const expired = await newKey();
    // Expired long ago in service time.
    await query("update api_keys set expires_at = 1 where id = $1", [expired.id]);
    const unknown = "unknown_key_0123456789abcdefghij";

    const before = await written();
    for (const key of [revoked.key, expired.key, unknown]) {
      await expectUnauthorized(await create(api.server, key, { prompt: "refused" }));
    }
    expect(await written()).toEqual(before);
  });

  it("answers 401 before 415 and 400 when the key is not live, and 400 when it is", async () => {
    const revoked = await newKey();
    await cli("keys", "revoke", revoked.id);
    const before = await written();
    for (const key of [revoked.key, "unknown_key_0123456789abcdefghij"]) {
      await expectUnauthorized(await create(api.server, key, { prompt: "" }));
      await expectUnauthorized(await create(api.server, key, { prompt: "x", unknown_field: 1 }));
      await expectUnauthorized(
        await create(api.server, key, { prompt: "x" }, { "content-type": "text/plain" }),
      );
    }
    const invalid = await create(api.server, TEST_API_KEY, { prompt: "" });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ success: false, code: "INVALID_REQUEST" });
    const media = await create(api.server, TEST_API_KEY, { prompt: "x" }, { "content-type": "text/plain" });
    expect(media.status).toBe(415);
    expect(await written()).toEqual(before);
  });

  it("answers 402 when the balance is short, writing nothing, and names the balance", async () => {
    await cli("accounts", "create", "poor", "--credits", "1");
    const { key } = await newKey("poor");
    const before = await written();
    const refused = await create(api.server, key, { prompt: "x", model_type: "gen-3" });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toEqual({
      success: false,
      error: "Payment Required",
      code: "INSUFFICIENT_CREDITS",
      message: "This task costs 2 credits (gen-3); the account has 1.",
    });
    expect(await written()).toEqual(before);
    // The one credit left still pays a gen-3-fast task.
    await createTask(api.server, { prompt: "x" }, key);
  });

  it("still records the key's last use and names the caller's account in the request log", async () => {
    const { key, id } = await newKey();
    const taskId = await createTask(api.server, { prompt: "noted" }, key);
    const [owner] = await query<{ account_id: string }>("select account_id from tasks where id = $1", [
      taskId,
    ]);
    await eventually(
      async () => {
        const [row] = await query<{ last_used_at: string | null }>(
          "select last_used_at from api_keys where id = $1",
          [id],
        );
        return row?.last_used_at ?? undefined;
      },
      30_000,
      "the key's last use to be recorded",
    );
    const logged = await eventually(
      async () =>
        api.server
          .logRecords()
          .find((record) => record.msg === "request" && record.method === "POST" && record.status === 200),
      10_000,
      "the create's request log line",
    );
    expect(logged).toMatchObject({ accountId: owner!.account_id, path: "/api/gen/generate" });
  });
});
