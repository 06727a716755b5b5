import { FAILURE_CATALOG, FAILURE_CODES, type FinishFailureCode } from "@genvideo/schema";
import { parseDuration } from "../duration.js";
import type { TaskRecord, TaskScenario } from "../ports.js";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const DEADLINE_MARKER = "[[timeout]]";
/** The catalog's `[[fail:<CODE>]]` markers, each with the code it forces at the task's finish time. */
const FINISH_FAILURES: ReadonlyMap<string, FinishFailureCode> = new Map(
  FAILURE_CODES.flatMap((code) => {
    const { marker } = FAILURE_CATALOG[code];
    return marker === DEADLINE_MARKER ? [] : [[marker, code as FinishFailureCode] as const];
  }),
);
const FAIL_MARKER = new RegExp([...FINISH_FAILURES.keys()].map(escapeRegExp).join("|"));
const TIMEOUT_MARKER = new RegExp(escapeRegExp(DEADLINE_MARKER));
const DELAY_MARKER = /\[\[delay:([^\]]*)\]\]/;

/**
 * Reads the scenario a prompt asks for (docs/testing.md#scenario-markers):
 * `[[fail:UNSAFE_CONTENT]]`, `[[fail:GENERATION_FAILED]]`, `[[timeout]]`,
 * `[[delay:90s]]` (any duration `parseDuration` reads: `500ms`, `1h30m`), and
 * words of the unsafe list, matched as whole words regardless of case. Markers combine (`[[fail:...]] [[delay:5s]]`
 * fails after 5 s); unknown markers are plain text.
 */
export function scenarioOf(prompt: string, unsafeWords: readonly string[] = []): TaskScenario {
  const scenario: TaskScenario = {};
  const fail = FAIL_MARKER.exec(prompt);
  if (fail) scenario.fail = FINISH_FAILURES.get(fail[0]);
  else if (unsafeWords.some((word) => containsWord(prompt, word))) scenario.fail = "UNSAFE_CONTENT";
  if (TIMEOUT_MARKER.test(prompt)) scenario.timeout = true;
  const delay = DELAY_MARKER.exec(prompt)?.[1];
  if (delay !== undefined) {
    try {
      scenario.delayMs = parseDuration(delay);
    } catch {
      // Not a duration: the marker is plain text, like any unknown marker.
    }
  }
  return scenario;
}

/**
 * When a claimed task finishes generating: `null` for a `[[timeout]]` task
 * (it never does). Generation time runs from creation, like the deadline, so
 * a late claim (busy workers, a jump of the mock's clock) doesn't stretch it.
 *
 * @example
 * finishAtOf(createdAt, scenarioOf("a fox [[delay:90s]]"), 60_000); // createdAt + 90_000
 * finishAtOf(createdAt, { timeout: true }, 60_000); // null
 */
export function finishAtOf(createdAt: number, scenario: TaskScenario, generationMs: number): number | null {
  return scenario.timeout ? null : createdAt + (scenario.delayMs ?? generationMs);
}

function containsWord(text: string, word: string): boolean {
  const trimmed = word.trim();
  if (trimmed === "") return false;
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(trimmed)}(?![\\p{L}\\p{N}])`, "iu").test(text);
}

/**
 * Whether a claim counts a task against its render limit (`Store.claimQueuedTasks`): it has no video
 * yet and its scenario does not fail it. A [[timeout]] task counts although it is never rendered,
 * so the stores' SQL reads two columns only; the worker claims again while slots stay free.
 */
export function mayNeedRender(task: Pick<TaskRecord, "videoKey" | "scenario">): boolean {
  return task.videoKey === null && !task.scenario.fail;
}
