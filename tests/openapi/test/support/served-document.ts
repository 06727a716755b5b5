/// <reference types="node" />
/** The document exactly as the reference server serves it at /openapi.json, written to a file for the tools. */
import { type RunningServer, removeDataDir } from "@genvideo/server/testing";
import { scratchDirectory } from "./tools.js";

export interface ServedDocument {
  path: string;
  document: Record<string, any>;
  remove(): void;
}

async function servedDocument(server: RunningServer): Promise<ServedDocument> {
  const response = await server.fetch("/openapi.json");
  if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
  const text = await response.text();
  const scratch = scratchDirectory("document");
  return { path: scratch.write("openapi.json", text), document: JSON.parse(text), remove: scratch.remove };
}

/**
 * A server `start` started and the document it serves; `cleanups` gets what stops the
 * server and removes its data and the document's file, for the suite's `afterAll`.
 */
export async function startDocumentedServer(
  start: () => Promise<RunningServer>,
  cleanups: (() => unknown)[],
): Promise<{ server: RunningServer; served: ServedDocument }> {
  const server = await start();
  cleanups.push(
    () => removeDataDir(server.dataDir),
    () => server.stop(),
  );
  const served = await servedDocument(server);
  cleanups.push(served.remove);
  return { server, served };
}
