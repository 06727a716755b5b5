/**
 * Where the engine's ids come from: task ids, webhook ids and request ids.
 * `crypto.randomUUID` unless a host injects its own source, such as the msw
 * mock's seeded one that gives a test the same task ids in every run. It must
 * return UUID v4 strings (task ids are UUIDs in the contract) and never repeat
 * within a store.
 */
export type RandomUUID = () => string;

export const cryptoRandomUUID: RandomUUID = () => crypto.randomUUID();

/** A webhook event's `webhook-id`: `msg_` and 32 hex digits. */
export function webhookEventId(randomUUID: RandomUUID): string {
  return `msg_${randomUUID().replaceAll("-", "")}`;
}
