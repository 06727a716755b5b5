import { errors } from "undici";
import { describe, expect, it } from "vitest";
import { deliveryFailureKind, describeDeliveryError } from "./delivery-error.js";
import { RefusedAddressError } from "./host-resolver.js";

const coded = (code: string, message = "boom") => Object.assign(new Error(message), { code });

describe("describeDeliveryError", () => {
  it.each([
    [new errors.ConnectTimeoutError(), "connect timeout"],
    [new errors.HeadersTimeoutError(), "timeout"],
    [new errors.BodyTimeoutError(), "timeout"],
    [new errors.SocketError("other side closed"), "connection closed"],
    [new errors.HeadersOverflowError(), "response headers too large"],
    [new errors.RequestAbortedError(), "aborted"],
    [coded("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:9"), "ECONNREFUSED"],
    [coded("ETIMEDOUT"), "connect timeout"],
    [coded("CERT_HAS_EXPIRED", "certificate has expired"), "CERT_HAS_EXPIRED"],
    [new RefusedAddressError("refused address 10.0.0.1 (private)"), "refused address 10.0.0.1 (private)"],
    [new AggregateError([coded("ENETUNREACH"), coded("ECONNREFUSED")]), "ENETUNREACH"],
    [new Error("fetch failed", { cause: coded("ECONNRESET") }), "ECONNRESET"],
    [new Error("no code at all"), "request failed"],
    ["a string", "request failed"],
    [coded("not a code"), "request failed"],
  ])("describes %o as %j", (error, expected) => {
    expect(describeDeliveryError(error)).toBe(expected);
  });
});

describe("deliveryFailureKind", () => {
  it.each([
    [new errors.ConnectTimeoutError(), "timeout"],
    [new errors.HeadersTimeoutError(), "timeout"],
    [coded("ETIMEDOUT"), "timeout"],
    [new RefusedAddressError("refused address 10.0.0.1 (private)"), "refused"],
    [coded("ECONNREFUSED"), "connect_error"],
    [coded("CERT_HAS_EXPIRED"), "connect_error"],
    [new Error("fetch failed", { cause: coded("ECONNRESET") }), "connect_error"],
    [new errors.RequestAbortedError(), undefined],
  ])("counts %o as %j", (error, expected) => {
    expect(deliveryFailureKind(error)).toBe(expected);
  });
});
