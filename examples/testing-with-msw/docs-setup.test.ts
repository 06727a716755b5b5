import { setupGenVideoMock } from "@genvideo/msw/vitest";
import { GenVideo } from "@genvideo/sdk";

const mock = setupGenVideoMock({ baseUrl: "https://api.genvideo.test" });
const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey });

// Everything above this line is docs/testing.md's "Set up once per test file" snippet, as written:
// the first test holds the guide to it, the others run it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("docs/testing.md, set up once per test file", () => {
  it("is the snippet at the top of this file, word for word", () => {
    const guide = readFileSync(new URL("../../docs/testing.md", import.meta.url), "utf8");
    const section = guide.slice(guide.indexOf("### Set up once per test file"));
    const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    const thisFile = readFileSync(new URL(import.meta.url), "utf8");
    expect(snippet).toBeDefined();
    expect(thisFile.startsWith(snippet!)).toBe(true);
  });

  it("gives a client that creates a task on the mock and sees it complete", async () => {
    const { task_id } = await client.createTask({ prompt: "a lighthouse in a storm" });
    await mock.clock.advance("1m");
    await expect(client.getStatus(task_id)).resolves.toMatchObject({ status: "completed", task_id });
  });

  it("starts each test from a reset mock", async () => {
    expect(await mock.tasks.list()).toEqual([]);
  });
});
