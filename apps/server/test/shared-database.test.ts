/**
 * Another process writing to the server's SQLite file while the server is
 * under load: the server's store then runs some transactions again (its
 * group's snapshot is older than the other process's commit), and no request
 * may notice (no 5xx).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createTask, waitForTerminal } from "./support/api.js";
import { FAST_SERVICE_ENV, removeDataDir, startServer, temporaryDataDir } from "./support/server-process.js";

const dataDir = temporaryDataDir();
afterAll(() => removeDataDir(dataDir));

/** A second process committing small writes to the same file as fast as it can, until stdin closes. */
const WRITER = `
const { DatabaseSync } = require("node:sqlite");
const db = new DatabaseSync(process.argv[1], { timeout: 5000 });
let open = true, writes = 0;
process.stdin.on("end", () => { open = false; }).resume();
const write = () => {
  if (!open) { db.close(); console.log(writes); return; }
  db.exec("update accounts set credits = credits + 0");
  writes++;
  setImmediate(write);
};
write();
`;

it("answers every request while another process writes to the same SQLite file", async () => {
  const server = await startServer({ dataDir, env: FAST_SERVICE_ENV });
  try {
    // A completed task: its status read signs the video URL, which takes a turn of the event loop.
    const taskId = await createTask(server, { prompt: "read under load" });
    await waitForTerminal(server, taskId);
    const writer = spawn(process.execPath, ["-e", WRITER, join(dataDir, "genvideo.db")], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let written = "";
    writer.stdout.setEncoding("utf8").on("data", (chunk: string) => (written += chunk));
    const writerExited = new Promise((resolve) => writer.once("exit", resolve));

    // Status reads with some creates among them: a create's first write in a
    // group that read before the other process's commit is what is refused.
    const statuses: number[] = [];
    const client = async (index: number) => {
      for (let round = 0; round < 60; round++) {
        const response =
          (round + index) % 2 === 0
            ? await server.api("/api/gen/generate", { json: { prompt: `load ${index}.${round}` } })
            : await server.api(`/api/gen/status/${taskId}`);
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    };
    await Promise.all(Array.from({ length: 24 }, (_, index) => client(index)));
    writer.stdin.end();
    await writerExited;

    expect(Number(written)).toBeGreaterThan(0);
    expect(statuses).toHaveLength(24 * 60);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(
      server.logRecords().filter((record) => record.level === "error" || record.level === "fatal"),
    ).toEqual([]);
  } finally {
    await server.stop();
  }
}, 60_000);
