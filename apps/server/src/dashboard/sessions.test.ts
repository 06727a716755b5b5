import { afterEach, beforeEach, expect, it } from "vitest";
import { DashboardQueries } from "../store/dashboard-queries.js";
import { openSqliteStore, type SqliteStoreHandle } from "../store/sqlite-store.js";
import { createSignInLink, SESSION_TTL_MS, SIGN_IN_LINK_TTL_MS, tokenHash } from "./sessions.js";
import { SignInLimiter } from "./sign-in-limiter.js";

let handle: SqliteStoreHandle;
let queries: DashboardQueries;
const T0 = Date.UTC(2026, 0, 1);

beforeEach(async () => {
  handle = await openSqliteStore(":memory:");
  queries = new DashboardQueries(handle.db);
  await handle.db
    .insertInto("accounts")
    .values({ id: "acc-1", name: "a", credits: 0, created_at: T0 })
    .execute();
});

afterEach(() => handle.store.close());

const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

it("a sign-in link works once, until 15 minutes after it was made, and stores only its hash", async () => {
  const { url, expiresAt } = await createSignInLink(queries, "acc-1", "http://127.0.0.1:8787", T0);
  expect(expiresAt).toBe(T0 + SIGN_IN_LINK_TTL_MS);
  const stored = await handle.db.selectFrom("dashboard_sign_in_links").selectAll().execute();
  expect(JSON.stringify(stored)).not.toContain(tokenOf(url));
  expect(await queries.consumeSignInLink(tokenHash(tokenOf(url)), T0 + SIGN_IN_LINK_TTL_MS - 1)).toBe(
    "acc-1",
  );
  expect(
    await queries.consumeSignInLink(tokenHash(tokenOf(url)), T0 + SIGN_IN_LINK_TTL_MS - 1),
  ).toBeUndefined();
});

it("refuses a link at its expiry and an unknown one", async () => {
  const { url } = await createSignInLink(queries, "acc-1", "http://127.0.0.1:8787", T0);
  expect(await queries.consumeSignInLink(tokenHash(tokenOf(url)), T0 + SIGN_IN_LINK_TTL_MS)).toBeUndefined();
  expect(await queries.consumeSignInLink(tokenHash("made-up"), T0)).toBeUndefined();
});

it("a session ends at its expiry", async () => {
  await queries.insertSession(tokenHash("s"), "acc-1", T0, T0 + SESSION_TTL_MS);
  expect(await queries.sessionAccount(tokenHash("s"), T0 + SESSION_TTL_MS - 1)).toMatchObject({
    accountId: "acc-1",
  });
  expect(await queries.sessionAccount(tokenHash("s"), T0 + SESSION_TTL_MS)).toBeUndefined();
});

it("limits failed sign-in attempts per client to 10 a minute", () => {
  let now = T0;
  const limiter = new SignInLimiter(() => now);
  for (let i = 0; i < 10; i++) {
    expect(limiter.allow("1.2.3.4")).toBe(true);
    limiter.fail("1.2.3.4");
  }
  expect(limiter.allow("1.2.3.4")).toBe(false);
  expect(limiter.allow("5.6.7.8")).toBe(true);
  now += 60_000;
  expect(limiter.allow("1.2.3.4")).toBe(true);
});
