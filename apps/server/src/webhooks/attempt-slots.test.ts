import { describe, expect, it } from "vitest";
import { createAttemptSlots } from "./attempt-slots.js";

const open = new AbortController().signal;

describe("attempt slots", () => {
  it("hands a released slot to the next waiter, in order", async () => {
    const slots = createAttemptSlots(1);
    const first = await slots.acquire(open);
    const order: string[] = [];
    const second = slots.acquire(open).then((release) => {
      order.push("second");
      return release;
    });
    const third = slots.acquire(open).then((release) => {
      order.push("third");
      release?.();
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    first?.();
    (await second)?.();
    await third;
    expect(order).toEqual(["second", "third"]);
  });

  it("gives up waiting when the signal aborts, without losing the slot", async () => {
    const slots = createAttemptSlots(1);
    const held = await slots.acquire(open);
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
    held?.();
    held?.(); // a second release is ignored
    const again = await slots.acquire(open);
    expect(again).toBeTypeOf("function");
    const blocked = slots.acquire(AbortSignal.timeout(20));
    expect(await blocked).toBeUndefined();
  });

  it("refuses a limit that is not a positive integer", () => {
    expect(() => createAttemptSlots(0)).toThrow(RangeError);
    expect(() => createAttemptSlots(1.5)).toThrow(RangeError);
  });
});
