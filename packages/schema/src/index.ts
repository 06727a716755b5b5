export * from "./catalog.js";
export * from "./image-data-uri.js";
export * from "./limits.js";
export * from "./request.js";
export * from "./validation-issue.js";
