/** Reading a server's `/metrics` in tests. */
import { expect } from "vitest";
import type { RunningServer } from "./server-process.js";

/** Where the server's `/metrics` listens, from its "listening" log line (GENVIDEO_METRICS_PORT=0 binds any port). */
export function metricsUrlOf(server: RunningServer): string {
  const listening = server.logRecords().find((record) => record.msg === "listening");
  const url = listening?.metrics;
  expect(url, "the listening line names the metrics URL").toEqual(expect.any(String));
  return url as string;
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels` (summed when several match). */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const matching = samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return matching.reduce((sum, sample) => sum + sample.value, 0);
}
