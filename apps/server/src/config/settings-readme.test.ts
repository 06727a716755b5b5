import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DATABASE_SETTINGS } from "./database-settings.js";
import { S3_SETTINGS } from "./s3-settings.js";
import { SERVER_SETTINGS } from "./settings.js";
import { TELEMETRY_SETTINGS } from "./telemetry-settings.js";

const README = new URL("../../README.md", import.meta.url);
const ALL_SETTINGS = [
  ...Object.values(SERVER_SETTINGS),
  ...Object.values(DATABASE_SETTINGS),
  ...Object.values(S3_SETTINGS),
  ...Object.values(TELEMETRY_SETTINGS),
];

/** The rows of the README's "Settings" table: the variables of the first cell, and the whole row. */
function documentedRows(markdown: string): { names: string[]; row: string }[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Settings"));
  if (!section) throw new Error('the server README has no "Settings" section');
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((row) => ({
      row,
      names: [...(row.split("|")[1] ?? "").matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1] as string),
    }));
}

describe("the server README's settings table, the list of record", () => {
  const rows = documentedRows(readFileSync(README, "utf8"));

  it("names every setting the server reads, and nothing else", () => {
    const documented = rows.flatMap((row) => row.names).sort();
    const read = ALL_SETTINGS.map((setting) => setting.name).sort();
    expect(documented).toEqual(read);
  });

  it("mentions, in a setting's row, the other variables it falls back to", () => {
    for (const setting of ALL_SETTINGS) {
      const row = rows.find((candidate) => candidate.names.includes(setting.name));
      for (const alias of setting.aliases ?? []) expect(row?.row, setting.name).toContain(`\`${alias}\``);
    }
  });

  it("is found by the parser above (a renamed heading would make the checks vacuous)", () => {
    expect(rows.length).toBeGreaterThan(10);
  });
});
