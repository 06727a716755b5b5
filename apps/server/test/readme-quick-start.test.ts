/**
 * The README's quick start, run as written on a fresh clone of the repository
 * (the commit under test, as CI clones it): `pnpm install`, then
 * `GENVIDEO_TIME_SCALE=60 pnpm start` in one "terminal", and in another the
 * key the first start showed, `pnpm example:create-and-wait …` and the two
 * curl lines. It ends with a completed task whose video ffprobe decodes, so
 * the README cannot drift from what works.
 *
 * Two things differ from a person's terminal, both said here: the server
 * listens on a free port (PORT, and the same port in place of 8787 in the
 * client commands; a fixed port may be taken on a shared machine), and
 * turbo's cache is this checkout's, so the clone's build is restored rather
 * than rebuilt when the sources are the same.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freeLoopbackPort } from "../src/testing/loopback.js";
import { probeVideo } from "./support/decode-video.js";
import { download, isMp4 } from "./support/downloads.js";
import { removeDataDir, temporaryDataDir } from "./support/server-process.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const clone = temporaryDataDir();
/** A config directory no tool has seen: first-run notices show as on a fresh machine. */
const freshConfig = temporaryDataDir();
let server: ChildProcess | undefined;

// As typed in a terminal: none of the settings pnpm passes to the scripts it runs (this test may run under one).
const terminalEnv: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && !/^(npm_|pnpm_|INIT_CWD$|VITEST|GENVIDEO_)/i.test(entry[0]),
  ),
);
terminalEnv.XDG_CONFIG_HOME = freshConfig;

/** The shell blocks of the README's "Quick start" section, in order. */
function quickStartBlocks(checkout = clone): string[][] {
  const readme = readFileSync(join(checkout, "README.md"), "utf8");
  const section = readme.slice(
    readme.indexOf("## Quick start"),
    readme.indexOf("\n## ", readme.indexOf("## Quick start") + 3),
  );
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) =>
    match[1]!
      .replace(/\\\n\s*/g, " ")
      .trim()
      .split("\n"),
  );
}

/** Runs one command line in bash in the clone; resolves with its output, rejects on a non-zero exit. */
function sh(line: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", line], { cwd: clone, env: { ...terminalEnv, ...env } });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.once("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${line} exited with ${code}:\n${output}`)),
    );
  });
}

/** Every process of a session (pnpm runs a script's child in a process group of its own, not a session). */
function sessionMembers(sessionId: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name (in parentheses): state, ppid, pgrp, session.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[3]) === sessionId) members.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return members;
}

/** Signals every process of the session; one that ended since it was listed is already where we want it. */
function signalSession(sessionId: number, signal: NodeJS.Signals): void {
  for (const pid of sessionMembers(sessionId)) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
}

afterAll(async () => {
  if (server?.pid !== undefined) {
    signalSession(server.pid, "SIGTERM");
    for (let waited = 0; sessionMembers(server.pid).length > 0 && waited < 100; waited++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    signalSession(server.pid, "SIGKILL");
  }
  removeDataDir(clone);
  removeDataDir(freshConfig);
});

describe("the README's quick start on a fresh clone", () => {
  // Not run from here (it is the suite this test belongs to): its last block is the command CI runs.
  it("ends with the test command that CI runs", () => {
    expect(quickStartBlocks(root).at(-1)).toEqual(["pnpm test"]);
    expect(readFileSync(join(root, ".ci/run"), "utf8")).toMatch(/^run_step "pnpm test" pnpm test$/m);
  });

  it("reaches a completed task with a playable video, with the commands as written", {
    timeout: 600_000,
  }, async () => {
    const commit = execFileSync("git", ["-C", root, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    execFileSync("git", ["clone", "--quiet", "--no-checkout", root, clone]);
    execFileSync("git", ["-C", clone, "checkout", "--quiet", commit]);

    const [serverTerminal, clientTerminal, byHand] = quickStartBlocks();
    expect(serverTerminal).toEqual([
      "pnpm install",
      expect.stringMatching(/^GENVIDEO_TIME_SCALE=60 pnpm start\b/),
    ]);
    await sh(serverTerminal![0]!);

    const port = await freeLoopbackPort();
    const baseUrl = `http://127.0.0.1:${port}`;
    server = spawn("bash", ["-c", serverTerminal![1]!], {
      cwd: clone,
      env: { ...terminalEnv, PORT: String(port), TURBO_CACHE_DIR: join(root, ".turbo", "cache") },
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    server.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    server.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<never>((_, reject) =>
      server!.once("exit", (code) =>
        reject(new Error(`pnpm start exited with ${code}:\n${stdout}\n${stderr}`)),
      ),
    );
    const apiKey = await Promise.race([
      exited,
      new Promise<string>((resolve) => {
        const look = () => {
          const key = /^(gen_sk_\S+)$/m.exec(stderr)?.[1];
          if (key && /"msg":"listening"/.test(stdout)) resolve(key);
        };
        server!.stdout!.on("data", look);
        server!.stderr!.on("data", look);
      }),
    ]);
    // The build tool's first-run notice is not ours to show (a fresh config directory would get it).
    expect(`${stdout}${stderr}`).not.toMatch(/collects completely anonymous telemetry/i);
    expect(stdout).not.toContain(apiKey);
    expect(stderr).toContain(`a sign-in link: pnpm genvideo-server dashboard link --account default`);

    // The signed-out page's hint runs as printed, where the server runs.
    const signIn = await (await fetch(`${baseUrl}/dashboard/sign-in`)).text();
    const hint = "pnpm genvideo-server dashboard link --account default";
    expect(signIn).toContain(`<pre>${hint}</pre>`);
    expect(await sh(hint, { PORT: String(port) })).toMatch(
      new RegExp(`^${baseUrl}/dashboard/sign-in\\?token=\\S+$`, "m"),
    );

    const client = { GENVIDEO_BASE_URL: baseUrl, TURBO_CACHE_DIR: join(root, ".turbo", "cache") };
    const asTyped = (line: string) =>
      line.replace("gen_sk_...", apiKey).replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`);
    expect(clientTerminal![0]).toMatch(/^export GENVIDEO_API_KEY=gen_sk_\.\.\. /);
    const waited = await sh(clientTerminal!.map(asTyped).join("\n"), client);
    const videoUrl = /^completed: (\S+)$/m.exec(waited)?.[1];
    expect(videoUrl, waited).toBeDefined();
    const video = await download(videoUrl!);
    expect(video.status).toBe(200);
    expect(isMp4(video.body)).toBe(true);
    const file = join(clone, "quick-start.mp4");
    writeFileSync(file, video.body);
    const probe = await probeVideo(file);
    expect(probe.codecName).toBe("h264");
    expect(probe.frameCount).toBeGreaterThan(0);

    const [create, status] = byHand!;
    const withKey = `export GENVIDEO_API_KEY=${apiKey}\n`;
    const created = JSON.parse(await sh(withKey + asTyped(create!))) as { task_id: string };
    expect(created.task_id).toMatch(/^[0-9a-f-]{36}$/);
    const read = JSON.parse(await sh(withKey + asTyped(status!).replace("<task_id>", created.task_id))) as {
      status: string;
    };
    expect(["queued", "processing", "completed"]).toContain(read.status);
  });
});
