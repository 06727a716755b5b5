/**
 * A fake resolver for tests: names map to fixed answers (or to a sequence of
 * answers, to play DNS rebinding), and every question is recorded.
 */
import { isIP } from "node:net";
import type { ResolvedAddress, ResolveHost } from "../../src/webhooks/host-resolver.js";

export interface FakeDns {
  resolve: ResolveHost;
  /** Every hostname asked, in order. */
  questions: string[];
}

/** `answers[name]` is one answer list, or several given out in turn (the last one repeats). */
export function fakeDns(answers: Record<string, string[] | string[][]>): FakeDns {
  const questions: string[] = [];
  const asked = new Map<string, number>();
  const resolve: ResolveHost = async (hostname) => {
    questions.push(hostname);
    const entry = answers[hostname];
    if (entry === undefined || entry.length === 0) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    }
    const turns: string[][] = Array.isArray(entry[0]) ? (entry as string[][]) : [entry as string[]];
    const turn = asked.get(hostname) ?? 0;
    asked.set(hostname, turn + 1);
    const list = turns[Math.min(turn, turns.length - 1)]!;
    return list.map((address): ResolvedAddress => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
  };
  return { resolve, questions };
}
