#!/usr/bin/env node
// MinIO's client as deploy/compose.yaml uses it, and nothing more:
//   mc ready ALIAS                       exits 0 once the alias's server answers
//   mc alias set ALIAS URL KEY SECRET    remembers a server and its key pair
//   mc mb [--ignore-existing] ALIAS/BUCKET
// Like mc, it knows the alias `local` (http://localhost:9000) from the start.
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const aws4 = require("aws4");

const configFile = path.join(process.env.HOME || "/root", ".mc", "stand-in-aliases.json");
const aliases = fs.existsSync(configFile)
  ? JSON.parse(fs.readFileSync(configFile, "utf8"))
  : { local: { url: "http://localhost:9000" } };

function fail(message) {
  console.error(`mc: ${message}`);
  process.exit(1);
}

function alias(name) {
  return aliases[name] ?? fail(`no alias ${name}`);
}

/** One request to the alias's server, signed with its key pair when it has one. */
function request(target, method, pathname) {
  const url = new URL(pathname, target.url);
  const options = {
    host: url.hostname,
    port: url.port,
    method,
    path: url.pathname,
    service: "s3",
    region: "us-east-1",
  };
  if (target.accessKey) {
    options.headers = { host: url.host };
    aws4.sign(options, { accessKeyId: target.accessKey, secretAccessKey: target.secretKey });
  }
  return new Promise((resolve, reject) => {
    const sent = http.request({ ...options, hostname: url.hostname }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode, body }));
    });
    sent.on("error", reject);
    sent.end();
  });
}

async function main([command, ...args]) {
  if (command === "ready") {
    const answer = await request(alias(args[0]), "GET", "/").catch((error) => fail(error.message));
    console.log(`'${args[0]}' is ready (HTTP ${answer.status})`);
  } else if (command === "alias" && args[0] === "set" && args.length === 5) {
    const [, name, url, accessKey, secretKey] = args;
    aliases[name] = { url, accessKey, secretKey };
    fs.mkdirSync(path.dirname(configFile), { recursive: true });
    fs.writeFileSync(configFile, JSON.stringify(aliases));
    console.log(`Added \`${name}\` successfully.`);
  } else if (command === "mb") {
    const ignoreExisting = args.includes("--ignore-existing");
    const [name, bucket] = (args.find((arg) => !arg.startsWith("--")) ?? "").split("/");
    if (!bucket) fail("usage: mc mb [--ignore-existing] ALIAS/BUCKET");
    const answer = await request(alias(name), "PUT", `/${bucket}`);
    const exists = answer.status === 409 && /BucketAlready(OwnedByYou|Exists)/.test(answer.body);
    if (answer.status !== 200 && !(exists && ignoreExisting)) fail(`HTTP ${answer.status}: ${answer.body}`);
    console.log(
      exists
        ? `Bucket \`${name}/${bucket}\` already exists.`
        : `Bucket created successfully \`${name}/${bucket}\`.`,
    );
  } else {
    fail("this stand-in knows only `ready`, `alias set` and `mb`");
  }
}

main(process.argv.slice(2)).catch((error) => fail(error.message));
