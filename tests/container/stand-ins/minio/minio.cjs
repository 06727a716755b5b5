#!/usr/bin/env node
// `minio server DIR [--console-address ADDR]`: s3rver serving the buckets under DIR on port 9000,
// accepting the one key pair MINIO_ROOT_USER and MINIO_ROOT_PASSWORD name (MinIO's root user).
// The console has no stand-in: its address is accepted and ignored.
const S3rver = require("@20minutes/s3rver");
const { DUMMY_ACCOUNT } = require("@20minutes/s3rver/lib/models/account.js");

const [command, directory] = process.argv.slice(2);
const { MINIO_ROOT_USER: user, MINIO_ROOT_PASSWORD: password } = process.env;
if (command !== "server" || !directory || !user || !password) {
  console.error("usage: MINIO_ROOT_USER=... MINIO_ROOT_PASSWORD=... minio server DIR");
  process.exit(2);
}
DUMMY_ACCOUNT.revokeAccessKey("S3RVER");
DUMMY_ACCOUNT.createKeyPair(user, password);

const server = new S3rver({ address: "0.0.0.0", port: 9000, directory, vhostBuckets: false, silent: true });
server.run().then(
  ({ port }) => console.log(`S3 API (s3rver standing in for MinIO) on :${port}, buckets in ${directory}`),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => server.close().then(() => process.exit(0)));
}
