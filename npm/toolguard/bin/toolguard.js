#!/usr/bin/env node
// toolguard's npm shim: finds the binary of this platform's package
// (@toolguard/<platform>-<arch>, an optional dependency npm installs only
// where os and cpu match) and runs it with the same arguments, streams and
// exit status. It adds no behaviour of its own.
//
// When the binary cannot be found or started it exits 2 under `hook`
// (Claude Code, CodeBuddy and Gemini CLI block the call on exit 2; a
// hook that fails open on other codes is the agent's setting, see
// docs/limits.md) and 1 otherwise, with the reason on stderr.
"use strict";

const { spawnSync } = require("child_process");
const path = require("path");

const platforms = {
  "darwin-arm64": "@toolguard/darwin-arm64",
  "darwin-x64": "@toolguard/darwin-x64",
  "linux-arm64": "@toolguard/linux-arm64",
  "linux-x64": "@toolguard/linux-x64",
  "win32-arm64": "@toolguard/win32-arm64",
  "win32-x64": "@toolguard/win32-x64",
};

const args = process.argv.slice(2);
const failCode = args[0] === "hook" ? 2 : 1;

function fail(msg) {
  process.stderr.write("toolguard (npm): " + msg + "\n");
  process.exit(failCode);
}

const key = process.platform + "-" + process.arch;
const pkg = platforms[key];
if (!pkg) {
  fail("no toolguard binary is published for " + key + "; build it from source (go build ./cmd/toolguard)");
}
const exe = process.platform === "win32" ? "toolguard.exe" : "toolguard";
let bin;
try {
  // Resolved from this file, so the copy next to this package wins over
  // anything elsewhere on NODE_PATH.
  bin = require.resolve(pkg + "/bin/" + exe, { paths: [path.join(__dirname, "..")] });
} catch (e) {
  fail(
    "the package " + pkg + " is not installed (npm skips optional dependencies with --no-optional " +
      "or --omit=optional); reinstall toolguard without those flags"
  );
}

const r = spawnSync(bin, args, { stdio: "inherit", windowsHide: true });
if (r.error) {
  fail("cannot run " + bin + ": " + r.error.message);
}
if (r.signal) {
  // Die of the same signal, so that the caller sees what the binary saw.
  process.kill(process.pid, r.signal);
  fail("killed by " + r.signal);
}
process.exit(r.status === null ? failCode : r.status);
