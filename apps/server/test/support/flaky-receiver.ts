/**
 * A loopback webhook receiver that fails some attempts on purpose, the same
 * way whichever process sends them: what an event gets depends only on its
 * `webhook-id` and on how many requests for it arrived before. It records
 * every request, so a test can compare what arrived with the delivery log.
 * A handler of the receivers' `startReceiver`.
 */
import { createHash } from "node:crypto";
import { startReceiver } from "./receivers.js";

export interface ArrivedWebhook {
  webhookId: string;
  taskId: string;
  body: string;
  /** The status it was answered with, or null for a connection cut without an answer. */
  answered: number | null;
}

export interface FlakyReceiver {
  url: string;
  /** Every request, in arrival order. */
  arrived: ArrivedWebhook[];
  close(): Promise<void>;
}

/**
 * For a third of the events the first request gets a 503; for a fifth, the
 * first two get a 503; for a seventh, the first connection is cut without an
 * answer (a network error). Every other request gets a 204. So every event
 * succeeds by its third request, well within the five attempts it is given.
 */
export function failuresBeforeSuccess(webhookId: string): (number | null)[] {
  const digest = createHash("sha256").update(webhookId).digest()[0]!;
  if (digest % 5 === 0) return [503, 503];
  if (digest % 3 === 0) return [503];
  if (digest % 7 === 0) return [null];
  return [];
}

export async function startFlakyReceiver(): Promise<FlakyReceiver> {
  const arrived: ArrivedWebhook[] = [];
  const seen = new Map<string, number>();
  const receiver = await startReceiver((request, response) => {
    const webhookId = String(request.headers["webhook-id"]);
    const before = seen.get(webhookId) ?? 0;
    seen.set(webhookId, before + 1);
    const failure = failuresBeforeSuccess(webhookId)[before];
    const answered = failure === undefined ? 204 : failure;
    const taskId = String((JSON.parse(request.body) as { task_id?: unknown }).task_id);
    arrived.push({ webhookId, taskId, body: request.body, answered });
    if (answered === null) response.socket?.destroy();
    else response.writeHead(answered).end();
  });
  return { url: `${receiver.origin}/hook`, arrived, close: () => receiver.close() };
}
