/**
 * The strings of the wire whose shape the contract fixes (docs/api.md): task and account ids are
 * lowercase UUID v4, event ids `msg_` and 32 hex digits, request ids `req_<uuid>` or the client's
 * own, times ISO 8601 in UTC, URLs absolute. Parsing checks them, and the OpenAPI builder adds the
 * `format` each one is (openapi-components.ts), so every tool reading the document sees the same rule.
 */
import * as z from "zod/mini";

/** A UUID v4 as the service writes it: lower case. */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A task id, as the create endpoint returns it. */
export const TaskIdString = z.string().check(z.regex(UUID_V4));
/** An account id. */
export const AccountIdString = z.string().check(z.regex(UUID_V4));
/** A webhook event id, the `webhook-id` header value: `msg_` and 32 hex digits. */
export const WebhookEventIdString = z.string().check(z.regex(/^msg_[0-9a-f]{32}$/));
/** A request id, as `X-Request-Id` carries it: the client's own plain id, else `req_<uuid>`. */
export const RequestIdString = z.string().check(z.regex(/^[A-Za-z0-9._:-]{1,128}$/));
/** An absolute http(s) URL. */
export const UrlString = z.url({ protocol: /^https?$/ });
/** An ISO 8601 date-time in UTC (`2026-11-22T10:00:00.000Z`). */
export const TimestampString = z.iso.datetime();
