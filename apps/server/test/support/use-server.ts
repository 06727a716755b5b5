/**
 * Servers (and the like) in tests: the one a file shares (`useServer`,
 * `useForFile`), started before its tests and stopped after them, and the ones
 * tests start as they go (`serverSet`), stopped after each test. One home for
 * the hooks every such file wrote by hand.
 */
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { type RunningServer, removeDataDir, type StartOptions, startServer } from "./server-process.js";

interface UseServerOptions extends StartOptions {
  /**
   * Runs once the server has stopped: close the file's webhook receivers here, so that no
   * delivery the server still makes on its way out meets a receiver already gone.
   */
  afterStop?: () => Promise<unknown> | unknown;
  /** How long the start, and the stop, may each take as a hook (vitest's hookTimeout otherwise). */
  hookTimeoutMs?: number;
}

/**
 * Starts something in `beforeAll` and stops it in `afterAll`, then runs `afterStop` (whether or
 * not the start succeeded). Returns it as a view of the started one: read it inside tests and
 * hooks registered after this call (before the start, it throws).
 */
export function useForFile<T extends object>({
  name,
  start,
  stop,
  afterStop,
  hookTimeoutMs,
}: {
  /** Named in the error a read before the start throws. */
  name: string;
  start: () => Promise<T>;
  stop: (started: T) => Promise<void>;
  afterStop?: () => Promise<unknown> | unknown;
  hookTimeoutMs?: number;
}): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, hookTimeoutMs);
  afterAll(async () => {
    try {
      if (started) await stop(started);
    } finally {
      await afterStop?.();
    }
  }, hookTimeoutMs);
  return new Proxy({} as T, {
    get(_target, key) {
      if (!started) throw new Error(`${name} starts in beforeAll; read it inside a test or a later hook`);
      const value = Reflect.get(started, key);
      return typeof value === "function" ? value.bind(started) : value;
    },
  });
}

/**
 * The file's server: started in `beforeAll`; in `afterAll` stopped gracefully, its data
 * directory removed and its exit code expected to be 0, then `afterStop` runs.
 */
export function useServer(options: UseServerOptions = {}): RunningServer {
  const { afterStop, hookTimeoutMs, ...startOptions } = options;
  return useForFile({
    name: "useServer()'s server",
    start: () => startServer(startOptions),
    stop: async (server) => {
      const code = await server.stop();
      removeDataDir(server.dataDir);
      expect(code, "the server's exit code after a graceful stop").toBe(0);
    },
    afterStop,
    hookTimeoutMs,
  });
}

/** Servers the tests of a file start as they go, and what they leave behind. */
interface ServerSet {
  /** Starts a server that the set stops (and whose data directory it removes) after the test. */
  start(options?: StartOptions): Promise<RunningServer>;
  /** Stops every server started so far (gracefully, together); each stop resolves with its exit code. */
  stopAll(): Promise<(number | null)[]>;
  /** A data directory (of a CLI run, say) to remove with the servers'; returns it. */
  removeLater(dataDir: string): string;
}

/**
 * Stops the servers a test started, after each test (`after: afterAll`: after the file's
 * last), then removes every data directory they ran on and then runs `afterStop`: close
 * receivers and other helpers there, after the servers that send to them.
 */
export function serverSet({
  after = afterEach,
  afterStop,
}: {
  after?: typeof afterEach | typeof afterAll;
  afterStop?: () => Promise<unknown> | unknown;
} = {}): ServerSet {
  const started: RunningServer[] = [];
  const dataDirs = new Set<string>();
  const stopAll = () => Promise.all(started.splice(0).map((server) => server.stop()));
  after(async () => {
    try {
      await stopAll();
      for (const dataDir of dataDirs) removeDataDir(dataDir);
      dataDirs.clear();
    } finally {
      await afterStop?.();
    }
  });
  return {
    async start(options = {}) {
      const server = await startServer(options);
      started.push(server);
      dataDirs.add(server.dataDir);
      return server;
    },
    stopAll,
    removeLater(dataDir) {
      dataDirs.add(dataDir);
      return dataDir;
    },
  };
}
