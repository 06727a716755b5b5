/** The OpenAPI links of the document: how a create answer's task_id reaches the task's other operations. */

type Json = Record<string, unknown>;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/**
 * Where a created task's id leads: its status, its webhook events and their redelivery. Clients and
 * stateful API testers follow these from the create answer without knowing the paths.
 */
const TASK_LINK_TARGETS = {
  TaskStatus: ["getTaskStatus", "Read the task's status with the task_id the create answer returned."],
  TaskWebhookEvents: ["listWebhookEvents", "List the webhook events of the task just created."],
  TaskWebhookRedelivery: ["redeliverWebhook", "Deliver the task's latest webhook event again."],
} as const;
export const TASK_LINKS: Json = Object.fromEntries(
  Object.keys(TASK_LINK_TARGETS).map((name) => [name, ref("links", name)]),
);

/** `components.links`: each target operation, its task_id taken from the create answer's body. */
export function buildLinks(): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(TASK_LINK_TARGETS).map(([name, [operationId, description]]) => [
      name,
      { operationId, parameters: { task_id: "$response.body#/task_id" }, description },
    ]),
  );
}
