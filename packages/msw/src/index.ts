export * from "./duration.js";
