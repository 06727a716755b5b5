// scripts/check-commit-messages.mjs (part of `pnpm lint`) run on throwaway repositories: it reports
// each commit after the baseline that breaks the convention, leaves the older ones alone, and in a
// shallow clone that does not reach the baseline checks every commit there is.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support.ts";

const SCRIPT = join(REPO_ROOT, "scripts/check-commit-messages.mjs");
const IDENTITY = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, ...IDENTITY } }).trim();
}

function commit(repo: string, message: string): string {
  writeFileSync(join(repo, "file.txt"), `${Math.random()}\n`);
  git(repo, "add", "file.txt");
  git(repo, "commit", "-q", "-m", message);
  return git(repo, "rev-parse", "HEAD");
}

function check(cwd: string, baseline: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, "--baseline", baseline], { cwd }, (error, stdout, stderr) => {
      resolve({ code: typeof error?.code === "number" ? error.code : 0, output: stdout + stderr });
    });
  });
}

const LONG_SUBJECT = `Store: ${"a very long subject that tells the whole story ".repeat(3).trim()}`;

describe("the commit message check (pnpm lint)", () => {
  let root: string;
  let repo: string;
  let baseline: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "genvideo-commits-"));
    repo = join(root, "repo");
    git(root, "init", "-q", "-b", "main", repo);
    commit(repo, LONG_SUBJECT); // before the convention: left alone
    baseline = commit(repo, "Lint: check commit messages\n\nWhy it matters.");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("passes commits that follow the convention, and leaves those up to the baseline alone", async () => {
    commit(repo, "Dashboard: page the webhook log by its own index\n\nIt read every row.");
    commit(repo, "README: fix a typo");
    const result = await check(repo, baseline);
    expect(result).toEqual({ code: 0, output: expect.stringContaining("2 commits after the baseline") });
  });

  it("fails a new commit whose subject is long, ends with a period, or runs into its body", async () => {
    const long = commit(repo, `${LONG_SUBJECT}\n\nThe body.`);
    const glued = commit(repo, "Server: stop the loop.\nThe body right under the subject.");
    const result = await check(repo, baseline);
    expect(result.code).toBe(1);
    expect(result.output).toContain(`${long.slice(0, 10)} ${LONG_SUBJECT}`);
    expect(result.output).toContain(`the subject has ${LONG_SUBJECT.length} characters (at most 72`);
    expect(result.output).toContain(`${glued.slice(0, 10)} Server: stop the loop.`);
    expect(result.output).toContain("the subject ends with a period");
    expect(result.output).toContain("the second line is not blank");
    expect(result.output).toContain("2 of 4 new commits break the convention");
  });

  it("checks every commit of a shallow clone that does not reach the baseline", async () => {
    const clone = join(root, "shallow");
    git(root, "clone", "-q", "--depth", "1", `file://${repo}`, clone);
    const result = await check(clone, baseline);
    expect(result.code).toBe(1);
    expect(result.output).toContain("1 of 1 new commits break the convention");
  });

  it("refuses to guess when a full history lacks the baseline", async () => {
    const result = await check(repo, "0123456789abcdef0123456789abcdef01234567");
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("is not in this repository's history");
  });
});
