export * from "./catalog.js";
export * from "./request.js";
