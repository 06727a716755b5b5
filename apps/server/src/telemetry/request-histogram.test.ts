import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { RequestHistogram } from "./request-histogram.js";

describe("the request histogram", () => {
  it("exposes exactly what prom-client's Histogram exposes for the same observations", async () => {
    const buckets = [0.001, 0.01, 0.1, 1];
    const ours = new Registry();
    const theirs = new Registry();
    const lean = new RequestHistogram(ours, { name: "requests_seconds", help: "Requests.", buckets });
    const reference = new Histogram({
      name: "requests_seconds",
      help: "Requests.",
      labelNames: ["route", "status_class"],
      buckets,
      registers: [theirs],
    });
    const observations: [string, string, number][] = [
      ["/a", "2xx", 0.0005],
      ["/a", "2xx", 0.001],
      ["/a", "2xx", 0.05],
      ["/a", "5xx", 2],
      ["/b/:id", "4xx", 0.01],
    ];
    for (const [route, statusClass, seconds] of observations) {
      lean.observe(`${route} ${statusClass}`, () => ({ route, status_class: statusClass }), seconds);
      reference.observe({ route, status_class: statusClass }, seconds);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    ours.resetMetrics();
    expect(await ours.metrics()).toBe(
      "# HELP requests_seconds Requests.\n# TYPE requests_seconds histogram\n",
    );
  });
});
