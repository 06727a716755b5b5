/** What the README says about seeds, checked against what the mock does. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createGenVideoMock, type GenVideoMock } from "../src/index.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

async function firstTaskId(mock: GenVideoMock): Promise<string> {
  const response = await mock.fetch(
    new Request(`${mock.baseUrl}/api/gen/generate`, {
      method: "POST",
      headers: { authorization: `Bearer ${mock.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "a fox" }),
    }),
  );
  return ((await response.json()) as { task_id: string }).task_id;
}

describe("the README on seeded task ids", () => {
  it("says everywhere that task ids follow the seed, as they do", async () => {
    const mentions = readme
      .split(/\n(?=[-|#]|\n)/)
      .filter((block) => /\btask\b[^.]*\bids\b/i.test(block) && /seed/.test(block));
    expect(mentions.length).toBeGreaterThanOrEqual(2);
    for (const mention of mentions) expect(mention).not.toMatch(/random UUIDs? even|ids are random/i);

    const [one, two, other] = [
      createGenVideoMock({ seed: 3 }),
      createGenVideoMock({ seed: 3 }),
      createGenVideoMock({ seed: 4 }),
    ];
    const first = await firstTaskId(one);
    expect(await firstTaskId(two)).toBe(first);
    expect(await firstTaskId(other)).not.toBe(first);
    await one.reset();
    expect(await firstTaskId(one)).toBe(first);
  });
});
