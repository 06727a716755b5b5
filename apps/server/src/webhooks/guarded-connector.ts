/**
 * An undici connector that enforces the callback target policy at connection
 * time. Names are resolved by our own `lookup`, handed to `net.connect`, so the
 * socket connects to exactly the addresses that were checked: a DNS answer
 * that changes between the check and the connect (rebinding) cannot slip
 * through. IP literals never reach `lookup`, so they are checked before the
 * connector is called at all.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { classifyAddress } from "@genvideo/engine/rules";
import { buildConnector } from "undici";
import { findRefusedAddress, isLocalhostName } from "./callback-url.js";
import { RefusedAddressError, type ResolveHost } from "./host-resolver.js";

export interface GuardedConnectorOptions {
  /** Skip the address policy (local development); names are still resolved by `resolve`. */
  allowInsecure: boolean;
  resolve: ResolveHost;
  /** DNS, TCP and TLS together must finish within this. */
  connectTimeoutMs: number;
  /** PEM certificates trusted instead of the system's roots (tests, private deployments). */
  trustedCertificates?: readonly string[];
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const lookup = createGuardedLookup(options);
  const connect = buildConnector({
    // The lookup runs inside net.connect, so undici's connect timeout covers DNS too.
    timeout: options.connectTimeoutMs,
    lookup,
    // HTTP/1.1 only: dropping the connection after the response cap is then a plain socket close.
    allowH2: false,
    ...(options.trustedCertificates === undefined ? {} : { ca: [...options.trustedCertificates] }),
  });
  return (connectOptions, callback) => {
    const { hostname } = connectOptions;
    if (!options.allowInsecure && isIP(hostname) !== 0) {
      const category = classifyAddress(hostname);
      if (category !== "public") {
        // Asynchronously, like every other connector outcome.
        queueMicrotask(() =>
          callback(new RefusedAddressError(`refused address ${hostname} (${category})`), null),
        );
        return;
      }
    }
    connect(connectOptions, callback);
  };
}

/** A `dns.lookup`-shaped function that only ever answers with addresses the policy allows. */
export function createGuardedLookup(options: GuardedConnectorOptions) {
  return (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    if (!options.allowInsecure && isLocalhostName(hostname)) {
      callback(new RefusedAddressError(`refused host ${hostname} (loopback)`), []);
      return;
    }
    options.resolve(hostname).then(
      (addresses) => {
        if (!options.allowInsecure) {
          // Any refused address refuses the name, as at creation: we must not pick and choose.
          const refused = findRefusedAddress(addresses);
          if (refused !== undefined) {
            callback(new RefusedAddressError(`refused address ${refused.address} (${refused.category})`), []);
            return;
          }
        }
        const family = familyNumber(lookupOptions.family);
        const usable = addresses.filter((entry) => family === 0 || entry.family === family);
        const first = usable[0];
        if (first === undefined) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
        } else if (lookupOptions.all === true) {
          callback(
            null,
            usable.map(({ address, family }) => ({ address, family })),
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

function familyNumber(family: LookupOptions["family"]): 0 | 4 | 6 {
  if (family === 4 || family === "IPv4") return 4;
  if (family === 6 || family === "IPv6") return 6;
  return 0;
}
