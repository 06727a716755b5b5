// Webhook receivers that make the classic mistakes, as fetch-style handlers, for the receiver check's
// tests. Each is what an integrator really writes; only the mistake differs from `correctReceiver`.
import { verifyWebhook, WebhookVerificationError } from "../../src/index.js";

export type Handler = (request: Request) => Promise<Response>;

export const receiverSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** A clock the slow receivers move forward instead of sleeping. */
export class TestClock {
  now = 0;
  read = (): number => this.now;
}

async function refusingForgeries(work: () => Promise<Response>, refusal = 400): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (WebhookVerificationError.isInstance(error)) return new Response(error.reason, { status: refusal });
    throw error;
  }
}

/** Verifies the Request itself, acknowledges repeats by `webhook-id`, does the work once. */
export function correctReceiver(secret: string = receiverSecret): Handler {
  const handled = new Set<string>();
  return (request) =>
    refusingForgeries(async () => {
      await verifyWebhook(request, secret);
      const id = request.headers.get("webhook-id")!;
      if (!handled.has(id)) handled.add(id); // the work would be queued here, once per event
      return new Response(null, { status: 204 });
    });
}

export function neverVerifies(): Handler {
  return async (request) => {
    await request.json();
    return new Response(null, { status: 200 });
  };
}

/** Parses first, then verifies `JSON.stringify` of the parsed body: not the bytes that were signed. */
export function verifiesReserialisedBody(secret: string = receiverSecret): Handler {
  return (request) =>
    refusingForgeries(async () => {
      const parsed = await request.json();
      await verifyWebhook(JSON.stringify(parsed), request.headers, secret);
      return new Response(null, { status: 204 });
    });
}

export function ignoresTimestamps(secret: string = receiverSecret): Handler {
  return (request) =>
    refusingForgeries(async () => {
      await verifyWebhook(request, secret, { tolerance: Number.MAX_SAFE_INTEGER });
      return new Response(null, { status: 204 });
    });
}

/** Treats a `webhook-id` it has seen as a conflict: every retry after a lost 2xx then fails. */
export function repeatIsAnError(secret: string = receiverSecret): Handler {
  const seen = new Set<string>();
  return (request) =>
    refusingForgeries(async () => {
      await verifyWebhook(request, secret);
      const id = request.headers.get("webhook-id")!;
      if (seen.has(id)) return new Response("duplicate event", { status: 409 });
      seen.add(id);
      return new Response(null, { status: 204 });
    });
}

/** Correct, but does its heavy work before answering: `workMs` of the clock per delivery. */
export function slowReceiver(clock: TestClock, workMs: number, secret: string = receiverSecret): Handler {
  const correct = correctReceiver(secret);
  return async (request) => {
    clock.now += workMs;
    return correct(request);
  };
}

/** Moved to a new address and left a redirect behind, which the service does not follow. */
export function redirecting(): Handler {
  return async () =>
    new Response(null, { status: 308, headers: { location: "https://hooks.example.com/genvideo" } });
}

/** Verifies, but lets the verification error escape as a 500. */
export function crashesOnForgeries(secret: string = receiverSecret): Handler {
  return (request) =>
    refusingForgeries(async () => {
      await verifyWebhook(request, secret);
      return new Response(null, { status: 204 });
    }, 500);
}
