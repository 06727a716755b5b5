/**
 * Runs the receiver on Node:
 *
 *   GENVIDEO_WEBHOOK_SECRET=whsec_... PORT=3000 node server.ts
 *
 * then create tasks with `callback_url: "http://127.0.0.1:3000/webhooks/genvideo"` (start the
 * reference server with GENVIDEO_ALLOW_INSECURE_CALLBACKS=1 for a plain-http local URL).
 */
import { serve } from "@hono/node-server";
import { createReceiver } from "./receiver.ts";

const secret = process.env.GENVIDEO_WEBHOOK_SECRET;
if (!secret) {
  console.error("Set GENVIDEO_WEBHOOK_SECRET to the account's webhook signing secret (whsec_...).");
  process.exit(2);
}

const receiver = createReceiver({
  secret,
  onEvent: (payload) => {
    // Your work goes here: match payload.task_id to your own records first.
    console.log(`${payload.task_id}: ${payload.success ? payload.video_url : `failed, ${payload.message}`}`);
  },
});

const port = Number(process.env.PORT ?? 3000);
const server = serve({ fetch: receiver.fetch, port, hostname: process.env.HOST ?? "127.0.0.1" }, (info) =>
  console.log(`listening on http://${info.address}:${info.port}/webhooks/genvideo`),
);
// Ctrl-C or a container stop: finish the requests in flight, then exit.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => server.close());
