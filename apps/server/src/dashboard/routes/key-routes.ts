/** API keys: create (shown once), rotate with an overlap, revoke behind a confirmation. */
import { AdminError, type ApiKeySummary } from "@genvideo/engine";
import { Hono } from "hono";
import {
  type DashboardContext,
  type DashboardEnv,
  type DashboardServices,
  formChoice,
  formField,
  notFoundPage,
  render,
  viewerOf,
} from "../dashboard-env.js";
import { redirectWithFlash, takeFlash } from "../flash.js";
import { EXPIRY_CHOICES, OVERLAP_CHOICES } from "../format.js";
import { keyLabel, successorOf } from "../key-state.js";
import {
  type KeysPageData,
  keysPageBody,
  overlapMessage,
  revokeKeyBody,
  rotateKeyBody,
} from "../keys-pages.js";
import { type Html, page, type Viewer } from "../layout.js";

const FORM_NONCE = /^[0-9a-f-]{36}$/;
const KEYS_PAGE = "/dashboard/keys";

type PageExtras = Omit<KeysPageData, "keys" | "serviceNow">;

/** Mounted at /dashboard/keys. */
export function keyRoutes(services: DashboardServices): Hono<DashboardEnv> {
  const { admin, logger } = services;
  const app = new Hono<DashboardEnv>();

  const keysPage = async (c: DashboardContext) => {
    const viewer = viewerOf(c);
    const keys = await admin.listApiKeys(viewer.accountId);
    const extra = takeFlash<PageExtras>(c, services, KEYS_PAGE) ?? {};
    return render(
      c,
      page(
        viewer,
        "keys",
        "API keys",
        keysPageBody(viewer, { keys, serviceNow: services.serviceNow(), ...extra }),
      ),
    );
  };
  /** Every form answers with a redirect to the keys page (post/redirect/get), its outcome in a flash. */
  const backToKeys = (c: DashboardContext, extra: PageExtras) =>
    redirectWithFlash(c, services, KEYS_PAGE, extra);
  /** The key the path names, if it is the account's, with the account's keys. */
  const ownKey = async (c: DashboardContext) => {
    const keys = await admin.listApiKeys(viewerOf(c).accountId);
    const key = keys.find((candidate) => candidate.id === c.req.param("id"));
    return key && { ...key, successor: successorOf(key, keys) };
  };

  app.get("/", (c) => keysPage(c));

  app.post("/", async (c) => {
    const viewer = viewerOf(c);
    const expiry = await formChoice(c, "expires", EXPIRY_CHOICES);
    if (!expiry) return backToKeys(c, { problem: "Choose an expiry from the list." });
    // The form's one-time nonce, claimed in the database: the same form posted again (a reload,
    // the back button, another API process) creates and shows no second key.
    const nonce = await formField(c, "_form");
    if (
      nonce &&
      FORM_NONCE.test(nonce) &&
      !(await services.queries.claimFormNonce(nonce, viewer.accountId, services.wallNow()))
    )
      return backToKeys(c, {
        message: "That key was already created and shown once; it is not shown again.",
      });
    try {
      const created = await admin.createApiKey(viewer.accountId, {
        name: (await formField(c, "name")) ?? "",
        expiresAt: expiry.ms === null ? null : services.serviceNow() + expiry.ms,
      });
      logger.info({ accountId: viewer.accountId, keyId: created.apiKey.id }, "dashboard created an API key");
      return backToKeys(c, { created: { key: created.key, summary: created.apiKey } });
    } catch (error) {
      if (AdminError.isInstance(error)) return backToKeys(c, { problem: error.message });
      throw error;
    }
  });

  /** A page that asks before changing a key that is still live (rotate, revoke). */
  const confirmation =
    (title: string, body: (viewer: Viewer, key: ApiKeySummary & { successor?: ApiKeySummary }) => Html) =>
    async (c: DashboardContext) => {
      const key = await ownKey(c);
      if (!key || key.revokedAt !== null) return notFoundPage(c, "keys");
      return render(c, page(viewerOf(c), "keys", title, body(viewerOf(c), key)));
    };

  app.get("/:id/rotate", confirmation("Rotate a key", rotateKeyBody));

  app.post("/:id/rotate", async (c) => {
    const key = await ownKey(c);
    if (!key) return notFoundPage(c, "keys");
    // Rotated already: its successor is the key to rotate (this one stops at the overlap's end).
    if (key.successor)
      return backToKeys(c, {
        problem: `"${keyLabel(key)}" (${key.prefix}…) was already replaced by ${key.successor.prefix}…; rotate that one.`,
      });
    const overlap = await formChoice(c, "overlap", OVERLAP_CHOICES);
    if (!overlap) return backToKeys(c, { problem: "Choose an overlap from the list." });
    try {
      const rotated = await admin.rotateApiKey(key.id, overlap.ms);
      logger.info(
        { accountId: key.accountId, keyId: rotated.apiKey.id, replaced: key.id },
        "dashboard rotated an API key",
      );
      return backToKeys(c, {
        created: { key: rotated.key, summary: rotated.apiKey, replaced: rotated.previous },
        message: `Rotated "${keyLabel(key)}". ${overlapMessage(overlap.ms)}`,
      });
    } catch (error) {
      if (AdminError.isInstance(error)) return backToKeys(c, { problem: error.message });
      throw error;
    }
  });

  app.get("/:id/revoke", confirmation("Revoke a key", revokeKeyBody));

  app.post("/:id/revoke", async (c) => {
    const key = await ownKey(c);
    if (!key) return notFoundPage(c, "keys");
    await admin.revokeApiKey(key.id);
    logger.info({ accountId: key.accountId, keyId: key.id }, "dashboard revoked an API key");
    return backToKeys(c, {
      message: `Revoked "${keyLabel(key)}" (${key.prefix}…): refused from its next request on.`,
    });
  });

  return app;
}
