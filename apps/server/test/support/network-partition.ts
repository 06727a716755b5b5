/**
 * A network namespace joined to this machine by veth pairs, whose links a
 * test cuts and heals: a process inside it (`startServer({ networkNamespace })`)
 * can then lose its database, its webhook receivers, or both, the way a real
 * partition loses them. Linux only, as root (`ip netns`, Debian's iproute2).
 *
 * A cut drops packets silently, as a real partition does: connects and
 * queries hang, nothing is refused. It takes the host end of the link down,
 * so what the namespace sends is dropped at the pair; each end knows the
 * other's MAC address for good (no ARP to fail, which would answer "host
 * unreachable"), and a blackhole route on the host keeps its replies from
 * leaving by the default route while the link is down.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

export interface PartitionLink {
  /** The host end's address: what the namespace reaches through this link. */
  hostAddress: string;
  /** The namespace end's address. */
  namespaceAddress: string;
}

export interface PartitionedNamespace<Name extends string> {
  /** Pass to `startServer({ networkNamespace })`. */
  name: string;
  links: Record<Name, PartitionLink>;
  /** The host side's network for all links (CIDR), e.g. for pg_hba. */
  network: string;
  /** Drops every packet on these links, silently, until `heal`. */
  cut(...names: Name[]): void;
  heal(...names: Name[]): void;
  /** Removes the namespace, its links and the route; safe to call twice. */
  remove(): void;
}

/**
 * Whether this machine lets a test make network namespaces (root, iproute2).
 * When not, it warns once in one line (the suite then skips), except under
 * CI=true, where it throws: CI runs as root and must run the partition tests.
 */
export function networkNamespacesAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  const probe = `genvideo-probe-${process.pid}`;
  try {
    ip("netns", "add", probe);
    ip("netns", "delete", probe);
    return true;
  } catch (error) {
    const reason = `network namespaces not allowed here (run as root with iproute2): ${firstLine(error)}`;
    if (env.CI === "true") throw new Error(`CI=true but ${reason}`);
    console.warn(`partition tests skipped: ${reason}`);
    return false;
  }
}

/**
 * Makes a namespace with one veth pair per name, each a /30 of its own in
 * 10.231.<pid % 250>.0/24, up and addressed on both ends.
 */
export function createPartitionedNamespace<Name extends string>(
  linkNames: readonly Name[],
): PartitionedNamespace<Name> {
  const id = process.pid % 250;
  const name = `genvideo-partition-${process.pid}`;
  const network = `10.231.${id}.0/24`;
  const hostEnd = (index: number) => `gvp${process.pid % 100_000}h${index}`;
  const namespaceEnd = (index: number) => `gvp${process.pid % 100_000}n${index}`;
  const links = {} as Record<Name, PartitionLink>;
  const indexOf = new Map<Name, number>();
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    // Deleting the namespace deletes its veth ends, and with them the host ends.
    for (const command of [
      ["netns", "delete", name],
      ["route", "delete", "blackhole", network],
    ])
      try {
        ip(...command);
      } catch {}
  };
  /** The host end's (1) or the namespace end's (2) address on pair `index`. */
  const addressOf = (index: number, end: 1 | 2) => `10.231.${id}.${index * 4 + end}`;
  /** Each end of pair `index` knows the other's MAC address for good: no ARP that could fail loudly. */
  const knowEachOther = (index: number) => {
    const hostMac = readFileSync(`/sys/class/net/${hostEnd(index)}/address`, "utf8").trim();
    const listing = execFileSync("ip", ["-n", name, "-o", "link", "show", namespaceEnd(index)]).toString();
    const namespaceMac = /link\/ether ([0-9a-f:]+)/.exec(listing)?.[1];
    if (!namespaceMac) throw new Error(`no MAC address on ${namespaceEnd(index)}`);
    ip(
      ...`-n ${name} neigh replace ${addressOf(index, 1)} lladdr ${hostMac} dev ${namespaceEnd(index)} nud permanent`.split(
        " ",
      ),
    );
    ip(
      ...`neigh replace ${addressOf(index, 2)} lladdr ${namespaceMac} dev ${hostEnd(index)} nud permanent`.split(
        " ",
      ),
    );
  };
  try {
    ip("netns", "add", name);
    ip("-n", name, "link", "set", "lo", "up");
    // While a host end is down its connected route is gone: without this, replies would take the default route.
    ip("route", "add", "blackhole", network, "metric", "4000");
    linkNames.forEach((linkName, index) => {
      const [hostAddress, namespaceAddress] = [addressOf(index, 1), addressOf(index, 2)];
      ip("link", "add", hostEnd(index), "type", "veth", "peer", "name", namespaceEnd(index), "netns", name);
      ip("addr", "add", `${hostAddress}/30`, "dev", hostEnd(index));
      ip("-n", name, "addr", "add", `${namespaceAddress}/30`, "dev", namespaceEnd(index));
      ip("link", "set", hostEnd(index), "up");
      ip("-n", name, "link", "set", namespaceEnd(index), "up");
      links[linkName] = { hostAddress, namespaceAddress };
      indexOf.set(linkName, index);
      knowEachOther(index);
    });
  } catch (error) {
    remove();
    throw error;
  }
  const setLinks = (state: "up" | "down", names: Name[]) => {
    for (const linkName of names) {
      ip("link", "set", hostEnd(indexOf.get(linkName)!), state);
      // A host end brought back up lost its neighbour entry with its routes: restore it before traffic.
      if (state === "up") knowEachOther(indexOf.get(linkName)!);
    }
  };
  process.once("exit", remove);
  return {
    name,
    links,
    network,
    cut: (...names) => setLinks("down", names),
    heal: (...names) => setLinks("up", names),
    remove,
  };
}

function ip(...args: string[]): void {
  execFileSync("ip", args, { stdio: "pipe" });
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
  return (stderr || String(error)).split("\n")[0]!;
}
