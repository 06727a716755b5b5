/**
 * The server a test file shares: started before its tests, stopped after
 * them. One home for the beforeAll/afterAll pair every such file wrote.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { type RunningServer, removeDataDir, type StartOptions, startServer } from "./server-process.js";

interface UseServerOptions extends StartOptions {
  /**
   * Runs once the server has stopped: close the file's webhook receivers here, so that no
   * delivery the server still makes on its way out meets a receiver already gone.
   */
  afterStop?: () => Promise<unknown> | unknown;
  /** How long the start may take as a hook (vitest's hookTimeout otherwise). */
  hookTimeoutMs?: number;
}

/**
 * Starts a server in `beforeAll` and, in `afterAll`, stops it gracefully, expects it to exit
 * with 0, removes its data directory and then runs `afterStop`. Returns the server: read it
 * inside tests and hooks registered after this call (before the start, it throws).
 */
export function useServer(options: UseServerOptions = {}): RunningServer {
  const { afterStop, hookTimeoutMs, ...start } = options;
  let started: RunningServer | undefined;
  beforeAll(async () => {
    started = await startServer(start);
  }, hookTimeoutMs);
  afterAll(async () => {
    try {
      if (!started) return;
      const code = await started.stop();
      removeDataDir(started.dataDir);
      expect(code, "the server's exit code after a graceful stop").toBe(0);
    } finally {
      await afterStop?.();
    }
  });
  return new Proxy({} as RunningServer, {
    get(_target, key) {
      if (!started)
        throw new Error("useServer(): the server starts in beforeAll; read it inside a test or a later hook");
      const value = Reflect.get(started, key);
      return typeof value === "function" ? value.bind(started) : value;
    },
  });
}
