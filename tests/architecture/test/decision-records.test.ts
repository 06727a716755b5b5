// docs/decisions: every record says its status and the day it took it, and the index lists it with
// the same ones, so a reader of either knows whether a decision still holds.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support.ts";

const DECISIONS = join(REPO_ROOT, "docs/decisions");
const STATUS = /^(proposed|accepted|deprecated|superseded by \d{4})$/;
const records = readdirSync(DECISIONS).filter((name) => /^\d{4}-[a-z0-9-]+\.md$/.test(name));
const index = readFileSync(join(DECISIONS, "README.md"), "utf8");

describe("decision records", () => {
  it("exist", () => {
    expect(records.length).toBeGreaterThan(0);
  });

  it.each(records)("%s has a status and a date, as its row in the index", (name) => {
    const text = readFileSync(join(DECISIONS, name), "utf8");
    const [title, blank, status, date] = text.split("\n");
    expect(title).toMatch(new RegExp(`^# ${name.slice(0, 4)}: `));
    expect(blank).toBe("");
    const statusValue = /^- Status: (.+)$/.exec(status ?? "")?.[1];
    const dateValue = /^- Date: (\d{4}-\d{2}-\d{2})$/.exec(date ?? "")?.[1];
    expect(statusValue).toMatch(STATUS);
    expect(dateValue && new Date(`${dateValue}T00:00:00Z`).toISOString().slice(0, 10)).toBe(dateValue);
    const row = index.split("\n").find((line) => line.startsWith(`| [${name.slice(0, 4)}](${name})`));
    expect(row?.split("|").map((cell) => cell.trim())).toEqual(
      expect.arrayContaining([statusValue, dateValue]),
    );
  });
});
