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
 *
 * A replies-only cut drops what the host sends into the namespace and lets
 * the namespace's packets through: PostgreSQL gets every statement (and
 * runs it) while its answers are lost. It gives the host end a queue that
 * holds nothing (`pfifo limit 0`), which drops every packet sent on it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { startPostgresCluster } from "../../src/testing/postgres-cluster.js";
import { type RunningServer, startServer } from "../../src/testing/reference-server.js";

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
  /** Drops what the host sends on these links (the answers), silently, until `heal`. */
  cutReplies(...names: Name[]): void;
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
  const repliesCut = new Set<Name>();
  const setLinks = (state: "up" | "down", names: Name[]) => {
    for (const linkName of names) {
      if (state === "up" && repliesCut.delete(linkName))
        execFileSync("tc", ["qdisc", "del", "dev", hostEnd(indexOf.get(linkName)!), "root"], {
          stdio: "pipe",
        });
      ip("link", "set", hostEnd(indexOf.get(linkName)!), state);
      // A host end brought back up lost its neighbour entry with its routes: restore it before traffic.
      if (state === "up") knowEachOther(indexOf.get(linkName)!);
    }
  };
  const cutReplies = (names: Name[]) => {
    for (const linkName of names) {
      execFileSync(
        "tc",
        ["qdisc", "replace", "dev", hostEnd(indexOf.get(linkName)!), "root", "pfifo", "limit", "0"],
        {
          stdio: "pipe",
        },
      );
      repliesCut.add(linkName);
    }
  };
  process.once("exit", remove);
  return {
    name,
    links,
    network,
    cut: (...names) => setLinks("down", names),
    cutReplies: (...names) => cutReplies(names),
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

/**
 * Ends `pool` and waits until each of its connections has closed. `pool.end()` resolves once it has
 * asked them to close; a cluster stopped right after would end a session still closing, whose
 * client then raises 57P01 ("terminating connection due to administrator command") with nobody
 * listening, an uncaught error that fails the run after every test passed.
 */
export async function endPool(pool: import("pg").Pool): Promise<void> {
  let open = pool.totalCount;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on("remove", () => {
      if (--open === 0) resolve();
    });
  });
  await pool.end();
  await closed;
}

/** A request's status (or the error it failed with) and how long it took. */
export async function timed(
  request: () => Promise<Response>,
): Promise<{ status: number | string; ms: number }> {
  const startedAt = Date.now();
  try {
    const response = await request();
    await response.arrayBuffer();
    return { status: response.status, ms: Date.now() - startedAt };
  } catch (error) {
    return { status: String(error), ms: Date.now() - startedAt };
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What a partition test cleans up at its end, last made first. */
export type Cleanups = (() => Promise<unknown> | unknown)[];

export interface PartitionedDatabase<Name extends string> {
  partition: PartitionedNamespace<Name | "database" | "probe">;
  /** The test database, as this machine reaches it. */
  url: string;
  /**
   * Starts a server on the database with `env`: `cutOff`, inside the namespace, reaching the
   * database through the `database` link and answering HTTP on the `probe` link (never cut).
   */
  start(options: { dataDir: string; env: Record<string, string>; cutOff?: boolean }): Promise<RunningServer>;
}

/**
 * A namespace with a `database` and a `probe` link (and `links`), a PostgreSQL cluster listening
 * on the database link too, and a fresh database; each is cleaned up through `cleanups`, as are
 * the servers `start` starts (woken first, if a test left one stopped).
 */
export async function partitionedDatabase<Name extends string>(
  links: readonly Name[],
  cleanups: Cleanups,
): Promise<PartitionedDatabase<Name>> {
  const partition = createPartitionedNamespace<Name | "database" | "probe">(["database", "probe", ...links]);
  cleanups.push(() => partition.remove());
  const { database, probe } = partition.links;
  const cluster = await startPostgresCluster({
    alsoListen: { addresses: [database.hostAddress], clients: [partition.network] },
  });
  cleanups.push(() => cluster.stop());
  const url = await cluster.createDatabase();
  const throughLink = new URL(url);
  throughLink.hostname = database.hostAddress;
  return {
    partition,
    url,
    async start({ dataDir, env, cutOff = false }) {
      const server = await startServer({
        dataDir,
        startTimeoutMs: 60_000,
        env: {
          ...env,
          GENVIDEO_DATABASE_URL: cutOff ? throughLink.href : url,
          ...(cutOff ? { HOST: probe.namespaceAddress } : {}),
        },
        ...(cutOff ? { networkNamespace: partition.name } : {}),
      });
      cleanups.push(async () => {
        if (server.child.exitCode === null) server.child.kill("SIGCONT");
        await server.stop();
      });
      return server;
    },
  };
}
