/**
 * A few thousand malformed create requests (bodies and headers) over HTTP:
 * never a 5xx, never a crash, and not one task or charge created. Inputs come
 * from a seeded generator, so a failure names a reproducible case.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { GENERATION_REQUEST_FIELDS } from "@genvideo/schema";
import { expect, it } from "vitest";
import { credits } from "./support/api.js";
import { TEST_API_KEY } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({ env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_RATE_LIMITS: "off" } });

/** Mulberry32: tiny, fast, and the same sequence for the same seed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WEIRD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  "",
  " ",
  "\u0000",
  "💥".repeat(3),
  [],
  {},
  [[[]]],
  { $gt: "" },
  "data:image/png;base64,",
  "data:image/png;base64,!!!!",
  "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
  "data:text/html;base64,PGI+",
  `data:image/jpeg;base64,${"A".repeat(1000)}`,
  "javascript:alert(1)",
  "https://",
  "x".repeat(3000),
];

interface Case {
  body: string;
  headers: Record<string, string>;
}

/** Every case is invalid by construction: each mutation breaks something the contract checks. */
function malformedCase(next: () => number): Case {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const headers: Record<string, string> = {
    authorization: `Bearer ${TEST_API_KEY}`,
    "content-type": "application/json",
  };
  const base: Record<string, unknown> = { prompt: "a valid prompt" };
  const mutation = Math.floor(next() * 9);
  switch (mutation) {
    case 0: // a known field with a wrong value
      base[pick(GENERATION_REQUEST_FIELDS.filter((f) => f !== "prompt"))] = pick(
        WEIRD_VALUES.filter((v) => v !== undefined),
      );
      if (next() < 0.5)
        base.prompt = pick(WEIRD_VALUES.filter((v) => typeof v !== "string" || v.trim() === ""));
      else base.model_type = pick([1, "gen-4", "", null, "GEN-3"]);
      break;
    case 1: // an unknown field, maybe one that attacks the parser
      // defineProperty: a plain assignment to "__proto__" would set the prototype, not a field.
      Object.defineProperty(
        base,
        pick(["__proto__", "constructor", "prototype", "Prompt", "seed", "prompt ", "\u0000"]),
        {
          value: pick(WEIRD_VALUES),
          enumerable: true,
        },
      );
      break;
    case 2: // a prompt of the wrong type or length
      base.prompt = pick([null, 42, [], {}, "", "   ", "x".repeat(2001 + Math.floor(next() * 100))]);
      break;
    case 3: // forms that do not combine
      Object.assign(
        base,
        pick([
          { start_frame: WEIRD_VALUES[13] },
          { end_frame: `data:image/png;base64,${"iVBORw0KGgo".repeat(2)}` },
          { reference_images: [] },
          { reference_images: Array(5 + Math.floor(next() * 3)).fill("data:image/png;base64,iVBORw0KGgo=") },
          { start_frame: "a", end_frame: "b", reference_images: ["c"] },
        ]),
      );
      break;
    case 4: {
      // JSON that does not parse: a valid body cut short or corrupted
      const text = JSON.stringify({ ...base, aspect_ratio: "16:9" });
      const cut = 1 + Math.floor(next() * (text.length - 2));
      return {
        body: next() < 0.5 ? text.slice(0, cut) : `${text.slice(0, cut)}\u0001${text.slice(cut)}`,
        headers,
      };
    }
    case 5: // not an object at all
      return { body: JSON.stringify(pick([null, 1, "prompt", [base], true])), headers };
    case 6: // a wrong or missing media type
      delete headers["content-type"];
      if (next() < 0.7)
        headers["content-type"] = pick([
          "text/plain",
          "application/xml",
          "multipart/form-data",
          "json",
          "application/jsonx",
        ]);
      break;
    case 7: // a broken Authorization header
      headers.authorization = pick([
        "",
        "Bearer",
        "Bearer ",
        `bearer  ${TEST_API_KEY}x`,
        `Token ${TEST_API_KEY}`,
        `Bearer ${TEST_API_KEY.slice(0, -1)}`,
        `Bearer gen_sk_${"A".repeat(38)}`,
        "Bearer a b c",
        `Bearer ${"k".repeat(5000)}`,
      ]);
      break;
    default: // random bytes as the body
      return {
        body: Array.from({ length: 1 + Math.floor(next() * 200) }, () =>
          String.fromCharCode(Math.floor(next() * 256)),
        ).join(""),
        headers,
      };
  }
  if (next() < 0.2) headers["idempotency-key"] = pick(["", "k".repeat(256), "ok-key"]);
  return { body: JSON.stringify(base), headers };
}

it("answers thousands of malformed creates with 4xx, creating and charging nothing", async () => {
  const next = random(20_261_122);
  const before = await credits(server);
  const cases = Array.from({ length: 3000 }, () => malformedCase(next));
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const CONCURRENCY = 32;
  let cursor = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (cursor < cases.length) {
        const index = cursor++;
        const { body, headers } = cases[index]!;
        const response = await server.fetch("/api/gen/generate", { method: "POST", body, headers });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status >= 500 || response.status < 400)
          failures.push(
            `#${index} → ${response.status} ${text.slice(0, 200)} ${JSON.stringify(cases[index]).slice(0, 300)}`,
          );
        else if (response.status !== 401)
          expect(JSON.parse(text)).toMatchObject({ success: false, code: expect.any(String) });
      }
    }),
  );
  expect(failures).toEqual([]);
  expect([...statuses.keys()].every((status) => [400, 401, 413, 415, 422].includes(status))).toBe(true);
  expect((await server.fetch("/healthz")).status).toBe(200);
  expect(await credits(server)).toBe(before);
  const database = new DatabaseSync(join(server.dataDir, "genvideo.db"), { readOnly: true });
  const row = database.prepare("select count(*) as count from tasks").get() as { count: number };
  const ledger = database
    .prepare("select count(*) as count from ledger_entries where reason <> 'grant'")
    .get() as { count: number };
  database.close();
  expect(row.count).toBe(0);
  expect(ledger.count).toBe(0);
}, 30_000);
