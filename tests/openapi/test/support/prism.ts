/// <reference types="node" />
/**
 * Prism (`@stoplight/prism-cli`, from npm) as a validating proxy: `prism proxy <document> <upstream>`
 * without `--errors`, so every answer of the upstream comes through and Prism reports what it found
 * wrong with the request and the response in the `sl-violations` header.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { freeLoopbackPort } from "@genvideo/server/testing";
import { bin } from "./tools.js";

export interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

export interface PrismProxy {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startPrismProxy(documentPath: string, upstream: string): Promise<PrismProxy> {
  const port = await freeLoopbackPort();
  const child: ChildProcess = spawn(
    bin("prism"),
    [
      "proxy",
      documentPath,
      upstream,
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--errors=false",
      "-v",
      "warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited before listening:\n${output}`);
    try {
      await fetch(`${url}/openapi-probe`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`prism did not listen in 30 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The violations Prism found in one exchange, split by where they are. */
export function violationsOf(response: Response): { request: Violation[]; response: Violation[] } {
  const header = response.headers.get("sl-violations");
  const all = header ? (JSON.parse(header) as Violation[]) : [];
  return {
    request: all.filter((violation) => violation.location[0] === "request"),
    response: all.filter((violation) => violation.location[0] !== "request"),
  };
}
