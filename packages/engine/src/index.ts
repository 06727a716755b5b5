export * from "./clock.js";
export type * from "./ports.js";
