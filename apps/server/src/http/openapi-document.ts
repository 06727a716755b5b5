/**
 * The OpenAPI document the schema package builds from its zod schemas, made
 * once on first use. Until the schema package ships the builder, /openapi.json
 * and /docs answer 404 rather than the server failing to start.
 */
import * as schema from "@genvideo/schema";

let cached: Record<string, unknown> | undefined;

export function openApiDocument(): Record<string, unknown> | undefined {
  if (cached) return cached;
  const build = (schema as { buildOpenApiDocument?: () => Record<string, unknown> }).buildOpenApiDocument;
  cached = build?.();
  return cached;
}
