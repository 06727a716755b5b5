/**
 * A real Prometheus server (Debian's package) for the metrics tests: it scrapes the given
 * targets every second, evaluates the shipped rules, keeps its data in a temporary directory,
 * and answers PromQL through its HTTP API on a loopback port.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freeLoopbackPort } from "../../src/testing/loopback.js";
import { eventually } from "./server-process.js";

const RULES = fileURLToPath(new URL("../../../../deploy/prometheus/genvideo-rules.yml", import.meta.url));

export interface PrometheusTarget {
  /** `host:port` of a `/metrics` listener. */
  address: string;
  /** Labels Prometheus adds to its series (a role, say). */
  labels?: Record<string, string>;
}

export interface PrometheusServer {
  url: string;
  /** An instant query's result vector: each series' labels and value. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** The sum of an instant query's values (0 when it has none). */
  sum(promql: string): Promise<number>;
  /** Values of a label across every series Prometheus holds. */
  labelValues(label: string): Promise<string[]>;
  /** Every label name Prometheus holds. */
  labelNames(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startPrometheus(
  binary: string,
  targets: PrometheusTarget[],
): Promise<PrometheusServer> {
  const directory = mkdtempSync(join(tmpdir(), "genvideo-prometheus-"));
  const port = await freeLoopbackPort();
  const config = {
    global: { scrape_interval: "1s", evaluation_interval: "1s", scrape_timeout: "900ms" },
    rule_files: [RULES],
    scrape_configs: [
      {
        job_name: "genvideo",
        static_configs: targets.map((target) => ({ targets: [target.address], labels: target.labels ?? {} })),
      },
    ],
  };
  // JSON is YAML: no YAML writer needed.
  writeFileSync(join(directory, "prometheus.yml"), JSON.stringify(config));
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${join(directory, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(directory, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = `${stderr}${chunk.toString()}`.slice(-20_000);
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${stderr}`);
        return (await fetch(`${url}/-/ready`)).ok || undefined;
      },
      30_000,
      "prometheus to be ready",
    );
  } catch (error) {
    await stop();
    throw error;
  }

  async function api<T>(path: string): Promise<T> {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== "success") throw new Error(`prometheus ${path}: ${body.error}`);
    return body.data;
  }
  const query: PrometheusServer["query"] = async (promql) => {
    const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
      `/api/v1/query?query=${encodeURIComponent(promql)}`,
    );
    return data.result.map((series) => ({ metric: series.metric, value: Number(series.value[1]) }));
  };
  return {
    url,
    query,
    sum: async (promql) => (await query(promql)).reduce((total, series) => total + series.value, 0),
    labelValues: (label) => api<string[]>(`/api/v1/label/${label}/values`),
    labelNames: () => api<string[]>("/api/v1/labels"),
    stop,
  };
}
