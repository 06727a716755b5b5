// Starting and stopping the servers under test as child processes.
import { execFileSync, spawn } from "node:child_process";

/**
 * Gives the server's default account credits for any load, then creates `count`
 * tasks whose ids the status-read benchmarks cycle through. Callers wait for the
 * worker to settle them in their own way.
 */
export async function seedStatusTargets({ url, serverCli, env, auth, body, count = 200 }) {
  execFileSync(process.execPath, [serverCli, "accounts", "credit", "default", "100000000"], {
    env: { ...process.env, ...env },
    stdio: "ignore",
  });
  const headers = { ...auth, "content-type": "application/json" };
  const ids = [];
  for (let index = 0; index < count; index++) {
    const response = await fetch(`${url}/api/gen/generate`, { method: "POST", headers, body });
    ids.push((await response.json()).task_id);
  }
  return ids;
}

export function startProcess(args, env) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = /"msg":"listening"[^\n]*?"url":"([^"]+)"|"url":"([^"]+)"[^\n]*?"msg":"listening"/.exec(
        output,
      );
      if (match) {
        child.stdout.off("data", onData);
        // Keep draining stdout: a full pipe would stall the server's logger.
        child.stdout.resume();
        resolve(match[1] ?? match[2]);
      }
    };
    child.stdout.setEncoding("utf8").on("data", onData);
    child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.once("exit", (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });
  return {
    url,
    pid: child.pid,
    output: () => output,
    stop() {
      if (child.exitCode !== null) return Promise.resolve(child.exitCode);
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      return exited;
    },
  };
}
