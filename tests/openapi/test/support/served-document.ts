/// <reference types="node" />
/** The document exactly as the reference server serves it at /openapi.json, written to a file for the tools. */
import type { RunningServer } from "@genvideo/server/testing";
import { scratchDirectory } from "./tools.js";

export async function servedDocument(
  server: RunningServer,
): Promise<{ path: string; document: Record<string, any>; remove(): void }> {
  const response = await server.fetch("/openapi.json");
  if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
  const text = await response.text();
  const scratch = scratchDirectory("document");
  return { path: scratch.write("openapi.json", text), document: JSON.parse(text), remove: scratch.remove };
}
