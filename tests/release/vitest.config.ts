import { customerSuiteConfig } from "../ecosystem/support/suite-config.js";

// Installs from a registry that proxies npm: the timeouts allow a slow upstream.
export default customerSuiteConfig({ testTimeout: 300_000, hookTimeout: 900_000 });
