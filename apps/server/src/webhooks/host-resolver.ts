/**
 * Name resolution for callback targets, behind a function type so tests can
 * map a name to any address (DNS rebinding) without touching real DNS.
 */
import { lookup } from "node:dns/promises";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address `hostname` resolves to; rejects when it resolves to none. */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/**
 * The system resolver (`getaddrinfo`, so /etc/hosts counts), all addresses in
 * the order the system gives them.
 */
export const resolveWithSystemDns: ResolveHost = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, order: "verbatim" });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** Error `code` of a refusal by the address policy, so callers tell it from network errors. */
export const refusedAddressCode = "GENVIDEO_REFUSED_ADDRESS";

/** A connection refused by the callback target policy before any packet was sent. */
export class RefusedAddressError extends Error {
  override name = "RefusedAddressError";
  readonly code: string = refusedAddressCode;
}
