/**
 * Strings whose format (UUID, URL, ISO 8601) the OpenAPI document states but response parsing
 * does not re-check: a client gains nothing from refusing a body over a timestamp's shape, and the
 * format validators would triple the size of what a client bundles. The OpenAPI builder attaches
 * the formats to these shared instances.
 */
import * as z from "zod/mini";

/** A task UUID, as the server sends it. */
export const TaskIdString = z.string();
/** An absolute URL, as the server sends it. */
export const UrlString = z.string();
/** An ISO 8601 date-time, as the server sends it. */
export const TimestampString = z.string();
