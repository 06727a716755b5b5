// The baseline: bare Hono on @hono/node-server answering JSON, no auth, no
// database, no logging. What the reference server is measured against.
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const app = new Hono();
const status = {
  status: "completed",
  task_id: "6f1c2a9e-8a47-4c6e-9d0b-3c1e2f4a5b6c",
  message: "Video generated successfully",
  video_url:
    "http://127.0.0.1:8787/videos/6f1c2a9e-8a47-4c6e-9d0b-3c1e2f4a5b6c.mp4?expires=1700000000&signature=abc",
  progress: 100,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:01:00.000Z",
};
app.get("/api/gen/status/:task_id", (c) => c.json({ ...status, task_id: c.req.param("task_id") }));
app.post("/api/gen/generate", async (c) => {
  const body = await c.req.json();
  return c.json({
    success: true,
    message: "Task created",
    task_id: crypto.randomUUID(),
    prompt: body.prompt?.length,
  });
});

const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: "127.0.0.1" },
  (info) => {
    process.stdout.write(`${JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${info.port}` })}\n`);
  },
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
