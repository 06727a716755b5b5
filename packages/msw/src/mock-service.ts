import {
  createEngine,
  createMemoryStore,
  type Engine,
  type MemoryStore,
  type Renderer,
  type TaskRecord,
} from "@genvideo/engine";
import { MockServiceClock } from "./mock-clock.js";
import type { ResolvedMockOptions } from "./mock-options.js";
import { MockVideoStorage } from "./mock-video-storage.js";
import { seededRandom } from "./seeded-random.js";
import { type RecordedWebhook, RecordingWebhookSender } from "./webhook-deliveries.js";

/** Every mock task's video: there is one fixture, so the key only has to be non-null. */
function videoKeyOf(taskId: string): string {
  return `videos/${taskId}.mp4`;
}

/**
 * Never called in practice (tasks get their video at creation), but a task
 * that slipped past that still ends with the same fixture.
 */
const fixtureRenderer: Renderer = {
  render: async (job) => ({ videoKey: videoKeyOf(job.taskId) }),
};

/**
 * One life of the mocked service, from creation to the next `reset()`: an
 * engine on an in-memory store, its clock, its webhook sender and what the
 * mock learned on the way (the tasks created, in order).
 */
export class MockService {
  readonly engine: Engine;
  readonly store: MemoryStore;
  readonly clock: MockServiceClock;
  readonly sender: RecordingWebhookSender;
  readonly videos: MockVideoStorage;
  readonly ready: Promise<{ accountId: string }>;
  /** Ids of the tasks created through this mock, oldest first. */
  readonly taskIds: string[] = [];
  readonly #known = new Set<string>();
  /** Something may be due (a create, a control, a jump of time) since the last tick. */
  #dirty = true;
  #tickedAt = Number.NaN;

  constructor(options: ResolvedMockOptions, deliveries: RecordedWebhook[]) {
    this.store = createMemoryStore();
    this.clock = new MockServiceClock(options.start ?? Date.now(), options.scale);
    this.sender = new RecordingWebhookSender(options.webhookDelivery, deliveries);
    this.videos = new MockVideoStorage(options.baseUrl, options.videoSigningKey);
    // Its own stream, apart from the one that made the keys: ids start over with each life of the service.
    const ids = seededRandom(`${options.seed}/ids`);
    this.engine = createEngine({
      store: this.store,
      clock: this.clock,
      renderer: fixtureRenderer,
      videoStorage: this.videos,
      sender: this.sender,
      config: options.engineConfig,
      workerId: "genvideo-mock",
      randomUUID: () => ids.uuid(),
    });
    this.ready = this.#bootstrap(options);
  }

  async #bootstrap(options: ResolvedMockOptions): Promise<{ accountId: string }> {
    const [first, ...others] = options.apiKeys;
    const { account } = await this.engine.admin.bootstrap({
      apiKey: first,
      webhookSecret: options.webhookSecret,
    });
    // Bootstrapping again with another key adds it to the same account.
    for (const apiKey of others) await this.engine.admin.bootstrap({ apiKey });
    const delta = options.credits - account.credits;
    if (delta !== 0) {
      const now = this.clock.now();
      await this.store.transaction((tx) =>
        tx.appendLedger({
          id: crypto.randomUUID(),
          accountId: account.id,
          taskId: null,
          delta,
          reason: delta > 0 ? "grant" : "charge",
          createdAt: now,
        }),
      );
    }
    return { accountId: account.id };
  }

  /** Whether the task was created through this life of the mock. */
  knows(taskId: string): boolean {
    return this.#known.has(taskId);
  }

  markDirty(): void {
    this.#dirty = true;
  }

  /**
   * Brings the store up to the current service time before a request is
   * answered, so state is derived at each request. One tick suffices: no task
   * renders, so claims and completions happen in the same pass. Webhook
   * attempts it starts run on in the background.
   */
  async tick(): Promise<void> {
    const now = this.clock.now();
    if (!this.#dirty && now === this.#tickedAt) return;
    this.#dirty = false;
    this.#tickedAt = now;
    await this.engine.tick();
  }

  /** Everything due now, webhook attempts included and awaited. */
  async settle(): Promise<void> {
    this.#dirty = false;
    this.#tickedAt = this.clock.now();
    await this.engine.runUntilIdle();
  }

  /** Registers a task the create endpoint just made: gives it its video and any scenario queued for it. */
  async adopt(taskId: string, scenario: TaskRecord["scenario"] | undefined): Promise<void> {
    if (this.#known.has(taskId)) return;
    this.#known.add(taskId);
    this.taskIds.push(taskId);
    this.#dirty = true;
    // Claimed in between (a concurrent request ticked), its generation time still follows the scenario.
    await this.engine.presetTask(taskId, { videoKey: videoKeyOf(taskId), ...(scenario ? { scenario } : {}) });
  }

  getTask(taskId: string): Promise<TaskRecord | undefined> {
    return this.store.transaction((tx) => tx.getTask(taskId));
  }
}
