import { StoreUnavailableError } from "@genvideo/engine";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../logging/logger.js";
import { DatabaseReachability, type ServedCall } from "./database-reachability.js";

afterEach(() => {
  vi.useRealTimers();
});

function tracked() {
  vi.useFakeTimers();
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger("debug", { write: (line: string) => void lines.push(JSON.parse(line)) });
  const reachability = new DatabaseReachability({ logger, patienceMs: 1_000, now: () => Date.now() });
  return { reachability, lines };
}

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:5432"), { code: "ECONNREFUSED" });
/** Work that never ends unless it is given up on. */
const hanging = (call: ServedCall) =>
  new Promise<never>((_, reject) => {
    call.onGiveUp = () => reject(new Error("reset"));
  });

describe("DatabaseReachability", () => {
  it("logs one warning when an episode starts and one line when it ends, with what it cost", async () => {
    const { reachability, lines } = tracked();
    reachability.answered();
    expect(lines).toEqual([]);

    await expect(reachability.serve(() => Promise.reject(refused()))).rejects.toSatisfy(
      StoreUnavailableError.isInstance,
    );
    reachability.lost("no answer from PostgreSQL: again");
    for (let request = 0; request < 3; request++) reachability.answeredUnavailable();
    expect(reachability.housekeepingFailed(refused())).toBe(true);
    await vi.advanceTimersByTimeAsync(4_200);
    await reachability.serve(async () => "answered");
    reachability.answered();

    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
      {
        level: "warn",
        msg: "PostgreSQL out of reach: requests that need it are answered 503 DATABASE_UNAVAILABLE until it answers again",
      },
      { level: "warn", msg: "PostgreSQL reachable again" },
    ]);
    expect(lines[0]).toMatchObject({ reason: "PostgreSQL unreachable: connect ECONNREFUSED 10.0.0.1:5432" });
    expect(lines[1]).toMatchObject({
      reason: "PostgreSQL unreachable: connect ECONNREFUSED 10.0.0.1:5432",
      durationMs: 4_200,
      answeredUnavailable: 3,
      failedHousekeeping: 1,
    });
    // No stack on either line.
    expect(JSON.stringify(lines)).not.toMatch(/\n\s+at /);
    expect(reachability.outOfReach).toBe(false);
  });

  it("counts a housekeeping run begun in an episode that ended before it failed in that episode", async () => {
    const { reachability, lines } = tracked();
    reachability.lost("no answer from PostgreSQL: a TCP handshake to it went unanswered for 1000 ms");
    const runStartedAt = Date.now();
    await vi.advanceTimersByTimeAsync(3_000);
    // A request gets through: the episode ends. Then the run's query, on a connection the cut
    // killed, fails.
    await reachability.serve(async () => "answered");
    await vi.advanceTimersByTimeAsync(40);
    const terminated = () => new Error("Connection terminated unexpectedly");
    expect(reachability.housekeepingFailed(terminated(), runStartedAt)).toBe(true);
    expect(reachability.outOfReach).toBe(false);
    expect(lines.map(({ msg }) => msg)).toEqual([
      "PostgreSQL out of reach: requests that need it are answered 503 DATABASE_UNAVAILABLE until it answers again",
      "PostgreSQL reachable again",
    ]);
    // A run begun after the answer that fails so is a new episode.
    expect(reachability.housekeepingFailed(terminated(), Date.now())).toBe(true);
    expect(reachability.outOfReach).toBe(true);
    expect(lines).toHaveLength(3);
  });

  it("never cuts work short outside an episode", async () => {
    const { reachability } = tracked();
    let aborted = false;
    const slow = reachability.serve(async (call) => {
      call.onGiveUp = () => {
        aborted = true;
      };
      await new Promise((resolve) => setTimeout(resolve, 60_000));
      return "slow but healthy";
    });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(slow).resolves.toBe("slow but healthy");
    expect(aborted).toBe(false);
  });

  it("gives up on work in an episode once it has waited its patience, and aborts it", async () => {
    const { reachability } = tracked();
    const settled: { at: number; error: unknown }[] = [];
    const started = Date.now();
    const note = (promise: Promise<unknown>) =>
      promise.catch((error: unknown) => settled.push({ at: Date.now() - started, error }));
    // Began 600 ms before the episode: given up 1 s after it began. Began in the episode: 1 s after.
    const early = note(reachability.serve(hanging));
    await vi.advanceTimersByTimeAsync(600);
    reachability.lost("no answer from PostgreSQL: a TCP handshake to it went unanswered for 1000 ms");
    const late = note(reachability.serve(hanging));
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all([early, late]);
    expect(settled.map(({ at }) => at)).toEqual([1_000, 1_600]);
    for (const { error } of settled) {
      expect(StoreUnavailableError.isInstance(error)).toBe(true);
      expect((error as StoreUnavailableError).retryAfterSeconds).toBe(2);
      expect((error as Error).message).toMatch(/gave no answer within 1000 ms while out of reach/);
    }
  });

  it("gives up on every call still waiting when an episode starts, and on none that ended", async () => {
    const { reachability } = tracked();
    const outcomes: string[] = [];
    let finishMiddle!: () => void;
    const calls = [
      reachability.serve(hanging),
      reachability.serve(() => new Promise<string>((resolve) => (finishMiddle = () => resolve("answered")))),
      reachability.serve(hanging),
      reachability.serve(async () => "answered at once"),
    ].map((call, index) =>
      call.then(
        (value) => outcomes.push(`${index}: ${value}`),
        (error: unknown) =>
          outcomes.push(`${index}: ${StoreUnavailableError.isInstance(error) ? "503" : error}`),
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    finishMiddle();
    await vi.advanceTimersByTimeAsync(0);
    reachability.lost("PostgreSQL unreachable: timeout expired");
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(calls);
    expect(outcomes.sort()).toEqual(["0: 503", "1: answered", "2: 503", "3: answered at once"]);
  });

  it("gives up at once on work that began longer ago than its patience when an episode starts", async () => {
    const { reachability } = tracked();
    const started = Date.now();
    const pending = reachability.serve(hanging).catch(() => Date.now() - started);
    await vi.advanceTimersByTimeAsync(3_000);
    reachability.lost("PostgreSQL unreachable: timeout expired");
    await vi.advanceTimersByTimeAsync(0);
    expect(await pending).toBe(3_000);
  });

  it("starts no episode on evidence older than the database's last answer", async () => {
    const { reachability, lines } = tracked();
    const probeSentAt = Date.now();
    await vi.advanceTimersByTimeAsync(200);
    await reachability.serve(async () => "answered after the handshake was sent");
    await vi.advanceTimersByTimeAsync(800);
    reachability.lost(
      "no answer from PostgreSQL: a TCP handshake to it went unanswered for 1000 ms",
      probeSentAt,
    );
    expect(reachability.outOfReach).toBe(false);
    reachability.lost(
      "no answer from PostgreSQL: a TCP handshake to it went unanswered for 1000 ms",
      Date.now(),
    );
    expect(reachability.outOfReach).toBe(true);
    expect(lines).toHaveLength(1);
  });

  it("answers a session ended for idling in a transaction as unavailable, without an episode", async () => {
    const { reachability, lines } = tracked();
    const ended = () =>
      Object.assign(new Error("terminating connection due to idle-in-transaction timeout"), {
        code: "25P03",
      });
    await expect(reachability.serve(() => Promise.reject(ended()))).rejects.toSatisfy(
      StoreUnavailableError.isInstance,
    );
    // A worker's tick that met it is logged by the worker loop (at warn), not counted.
    expect(reachability.housekeepingFailed(ended())).toBe(false);
    expect(reachability.outOfReach).toBe(false);
    expect(lines).toEqual([]);
  });

  it("lets a fault of ours through as it is, without an episode", async () => {
    const { reachability, lines } = tracked();
    const bug = new TypeError("cannot read properties of undefined");
    await expect(reachability.serve(() => Promise.reject(bug))).rejects.toBe(bug);
    expect(reachability.housekeepingFailed(bug)).toBe(false);
    expect(reachability.outOfReach).toBe(false);
    expect(lines).toEqual([]);
  });
});
