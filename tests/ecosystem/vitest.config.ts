import { customerSuiteConfig } from "./support/suite-config.js";

export default customerSuiteConfig({ testTimeout: 180_000, hookTimeout: 600_000 });
