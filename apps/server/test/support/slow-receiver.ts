/**
 * A webhook receiver that takes its time: every request is answered 204
 * after `answerAfterMs`, so a sender's connections to it stay busy and its
 * further requests queue. On arrival it asks `holderOf` who holds the
 * event's claim at that moment, so a test can tell a request sent under its
 * claim from one sent after the claim went to another sender. A handler of
 * the receivers' `startReceiver`.
 */
import { startReceiver } from "./receivers.js";

export interface SlowArrival {
  webhookId: string;
  taskId: string;
  /** The sender's address. */
  from: string;
  /** `Date.now()` when the request's headers and body had arrived. */
  at: number;
  /** Who held the event's claim when it arrived (`holderOf`), and `Date.now()` once that was known. */
  holder: string | null;
  checkedAt: number;
}

export interface SlowReceiver {
  url: string;
  /** How long requests arriving from now on wait for their answer. */
  answerAfterMs: number;
  arrived: SlowArrival[];
  close(): Promise<void>;
}

export async function startSlowReceiver(options: {
  host: string;
  answerAfterMs: number;
  holderOf: (webhookId: string) => Promise<string | null>;
}): Promise<SlowReceiver> {
  const arrived: SlowArrival[] = [];
  let answerAfterMs = options.answerAfterMs;
  const timers = new Set<NodeJS.Timeout>();
  const receiver = await startReceiver(
    async (request, response) => {
      const at = Date.now();
      const webhookId = String(request.headers["webhook-id"]);
      const arrival: SlowArrival = {
        webhookId,
        taskId: String((JSON.parse(request.body) as { task_id?: unknown }).task_id),
        from: request.from,
        at,
        holder: null,
        checkedAt: at,
      };
      arrived.push(arrival);
      arrival.holder = await options.holderOf(webhookId);
      arrival.checkedAt = Date.now();
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          response.writeHead(204).end();
        },
        Math.max(0, at + answerAfterMs - Date.now()),
      );
      timers.add(timer);
    },
    { host: options.host },
  );
  return {
    url: `${receiver.origin}/hook`,
    arrived,
    get answerAfterMs() {
      return answerAfterMs;
    },
    set answerAfterMs(ms: number) {
      answerAfterMs = ms;
    },
    close: () => {
      for (const timer of timers) clearTimeout(timer);
      return receiver.close();
    },
  };
}
