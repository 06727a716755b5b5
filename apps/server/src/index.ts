export * from "./config.js";
