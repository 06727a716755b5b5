// CPU time a process has used, from /proc (Linux only).
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process and its threads, in microseconds; undefined where /proc is missing. */
export function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Milliseconds a process's main thread has spent runnable but not running
 * (waiting for a CPU that other processes held), from /proc/<pid>/schedstat;
 * undefined where it is missing. A request that arrives meanwhile waits for
 * the machine, not for the server: the bench prints it beside the latencies.
 */
export function runQueueWaitMs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e6;
  } catch {
    return undefined;
  }
}
