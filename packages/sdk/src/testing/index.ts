/**
 * The entry's first name, kept for one minor release so that imports of it keep working.
 * @deprecated Import from `@genvideo/sdk/receiver-check`: the receiver check is shipped code
 * (the server runs it), not test support. This entry is removed in the next minor release.
 */
export * from "../receiver-check/index.js";
