#!/usr/bin/env node
import { ConfigError, loadConfig } from "./config.js";

try {
  const config = loadConfig();
  console.log(`genvideo-server: configuration ok (${config.host}:${config.port})`);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`genvideo-server: ${error.message}`);
    process.exit(2);
  }
  throw error;
}
