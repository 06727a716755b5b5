/** The OpenAPI document the schema package builds from its zod schemas, made once on first use. */
import { buildOpenApiDocument } from "@genvideo/schema";

let cached: Record<string, unknown> | undefined;

export function openApiDocument(): Record<string, unknown> {
  cached ??= buildOpenApiDocument() as unknown as Record<string, unknown>;
  return cached;
}
