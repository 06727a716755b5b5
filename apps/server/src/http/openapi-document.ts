/**
 * The OpenAPI document the schema package builds from its zod schemas, made once per server URL on
 * first use. The server names its own public URL, so a client generated from `/openapi.json` gets
 * a base URL that reaches this server.
 */
import { buildOpenApiDocument } from "@genvideo/schema";

const cached = new Map<string, Record<string, unknown>>();

export function openApiDocument(serverUrl: string): Record<string, unknown> {
  let document = cached.get(serverUrl);
  if (!document) {
    document = buildOpenApiDocument({ serverUrl }) as unknown as Record<string, unknown>;
    cached.set(serverUrl, document);
  }
  return document;
}
