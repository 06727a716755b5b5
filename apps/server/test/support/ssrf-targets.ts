/**
 * Callback targets that must be refused without the development flag, shared
 * by the creation-time tests and the delivery-time tests.
 */
export interface SsrfTarget {
  /** The URL as a caller would send it. */
  url: string;
  /** Part of the INVALID_CALLBACK_URL reason at creation. */
  reason: string;
  /** Part of the attempt error at delivery. */
  deliveryError: string;
  /** Whether the host is a loopback form, so a receiver on 127.0.0.1 / ::1 could catch a leak. */
  loopback: "v4" | "v6" | false;
}

const target = (
  url: string,
  reason: string,
  deliveryError: string,
  loopback: SsrfTarget["loopback"] = false,
) => ({
  url,
  reason,
  deliveryError,
  loopback,
});

/** Several spellings of one address: each must be refused, with the same reason. */
const spellings = (
  urls: readonly string[],
  reason: string,
  deliveryError: string,
  loopback: SsrfTarget["loopback"] = false,
) => urls.map((url) => target(url, reason, deliveryError, loopback));

export const ssrfTargets: readonly SsrfTarget[] = [
  target(
    "https://localhost/hook",
    "host localhost is not a public address (loopback)",
    "refused host localhost",
    "v4",
  ),
  ...spellings(
    ["https://127.0.0.1/hook", "https://127.1/hook"],
    "host 127.0.0.1 is not a public address (loopback)",
    "refused address 127.0.0.1",
    "v4",
  ),
  ...spellings(
    ["https://2130706433/hook", "https://0x7f000001/hook", "https://0x7f.1/hook"],
    "host 127.0.0.1 is not a public address",
    "refused address 127.0.0.1",
    "v4",
  ),
  target("https://[::1]/hook", "host ::1 is not a public address (loopback)", "refused address ::1", "v6"),
  ...spellings(
    ["https://[::ffff:7f00:1]/hook", "https://[::ffff:127.0.0.1]/hook"],
    "host ::ffff:7f00:1 is not a public",
    "refused address ::ffff:7f00:1",
    "v4",
  ),
  target(
    "https://169.254.169.254/latest/meta-data/",
    "(metadata)",
    "refused address 169.254.169.254 (metadata)",
  ),
  target("https://[fd00:ec2::254]/latest/", "(metadata)", "refused address fd00:ec2::254 (metadata)"),
  target("https://100.100.100.200/", "(metadata)", "refused address 100.100.100.200 (metadata)"),
  target("https://[fd00::1]/hook", "(unique-local)", "refused address fd00::1 (unique-local)"),
  target(
    "https://10.0.0.1/hook",
    "host 10.0.0.1 is not a public address (private)",
    "refused address 10.0.0.1",
  ),
  target("https://172.16.0.1/hook", "(private)", "refused address 172.16.0.1 (private)"),
  target("https://192.168.1.1/hook", "(private)", "refused address 192.168.1.1 (private)"),
  target("https://100.64.0.1/hook", "(shared)", "refused address 100.64.0.1 (shared)"),
  target("https://[fe80::1]/hook", "(link-local)", "refused address fe80::1 (link-local)"),
  target("https://[2002:7f00:1::]/hook", "(6to4)", "refused address 2002:7f00:1:: (6to4)"),
  target("https://[64:ff9b::7f00:1]/hook", "(loopback)", "refused address 64:ff9b::7f00:1 (loopback)"),
  ...spellings(
    ["https://0.0.0.0/hook", "https://0/hook"],
    "(unspecified)",
    "refused address 0.0.0.0 (unspecified)",
  ),
  target("https://255.255.255.255/hook", "(broadcast)", "refused address 255.255.255.255 (broadcast)"),
  target("https://224.0.0.1/hook", "(multicast)", "refused address 224.0.0.1 (multicast)"),
  target(
    "https://rebind.test/hook",
    "resolves to a non-public address (127.0.0.1, loopback)",
    "refused address 127.0.0.1",
    "v4",
  ),
  target("http://example.com/hook", "callback_url must use https", "refused url: not https"),
];
