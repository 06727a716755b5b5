/**
 * `/metrics` on a listener of its own (GENVIDEO_METRICS_PORT and
 * GENVIDEO_METRICS_HOST), never on the API port: the API port faces clients,
 * and what a cluster's insides look like is for the operator's Prometheus.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NOSNIFF_HEADERS } from "@genvideo/engine";
import type { Registry } from "prom-client";
import { ConfigError } from "../config/parsers.js";
import { answerClientErrors } from "../http/client-error.js";

export interface MetricsListener {
  /** `http://host:port/metrics`, with the port bound (for GENVIDEO_METRICS_PORT=0). */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(
  registry: Registry,
  { host, port }: { host: string; port: number },
  onError: (error: unknown) => void,
): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = request.url?.split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response
        .writeHead(404, { "content-type": "text/plain; charset=utf-8", ...NOSNIFF_HEADERS })
        .end("Not found: try /metrics\n");
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { "content-type": registry.contentType, ...NOSNIFF_HEADERS });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        onError(error);
        response
          .writeHead(500, { "content-type": "text/plain; charset=utf-8", ...NOSNIFF_HEADERS })
          .end("metrics failed\n");
      },
    );
  });
  answerClientErrors(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
      server.listen(port, host);
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EADDRINUSE")
      throw new ConfigError(`GENVIDEO_METRICS_PORT ${port} is already in use on ${host}`);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN")
      throw new ConfigError(`GENVIDEO_METRICS_HOST ${host} is not an address of this machine`);
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
