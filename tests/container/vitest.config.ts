import { customerSuiteConfig } from "../ecosystem/support/suite-config.js";

// The global setup builds the image (and, on a machine that has none, its stand-in bases).
export default customerSuiteConfig({ testTimeout: 180_000, hookTimeout: 900_000 });
