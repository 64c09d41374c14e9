#!/usr/bin/env node
// Assembles the npm packages from built binaries, ready for `npm pack` or
// `npm publish`: the toolguard package (the shim) and one
// @toolguard/<platform>-<arch> package per binary given.
//
//   node npm/pack.js [--version V] --out DIR BINARY:GOOS:GOARCH[:SERVE_BINARY] ...
//
// SERVE_BINARY is toolguard-serve for that platform (the HTTP server,
// cmd/toolguard-serve, which `toolguard serve` runs from beside the binary).
//
// The version is the release's, without build metadata (+…), which npm
// drops. Every optionalDependency names exactly that version. Without
// --version it is what the first BINARY's `version` command reports (a
// binary of the host's platform). A source build reports "devel" (no
// -X main.version): its packages get a snapshot version,
// 0.0.0-devel-<commit> with the binary's 12-digit commit, else the
// checkout's, else 0.0.0-devel-<UTC time as YYYYMMDDhhmmss>; npm orders
// it below every release.
"use strict";

const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const goos = { darwin: "darwin", linux: "linux", windows: "win32" };
const goarch = { amd64: "x64", arm64: "arm64" };

function usage(msg) {
  process.stderr.write("npm/pack.js: " + msg + "\nusage: node npm/pack.js [--version V] --out DIR BINARY:GOOS:GOARCH[:SERVE_BINARY]...\n");
  process.exit(1);
}

let version = "";
let out = "";
const bins = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--version") version = argv[++i] || "";
  else if (argv[i] === "--out") out = argv[++i] || "";
  else bins.push(argv[i]);
}
if (!out) usage("no --out");
if (bins.length === 0) usage("no BINARY:GOOS:GOARCH");

// `toolguard version` prints "toolguard V [(commit C[, built D])] OS/ARCH GO".
let commit = "";
if (!version) {
  const bin = bins[0].split(":")[0];
  let line = "";
  try {
    line = execFileSync(bin, ["version"], { encoding: "utf8", timeout: 60000, stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    usage("no --version, and " + bin + " version failed (a binary of another platform needs --version): " + e.message);
  }
  const m = /^toolguard (\S+)(?: \(commit ([0-9a-f]+))?/.exec(line);
  if (!m) usage("no --version, and " + bin + " version printed " + JSON.stringify(line.trim()));
  version = m[1];
  commit = m[2] || "";
}
if (version === "devel" || version === "(devel)") version = snapshotVersion(commit);
version = version.replace(/^v/, "").replace(/\+.*$/, "");
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) usage("bad --version " + JSON.stringify(version));

// snapshotVersion is the version of packages packed from a source build.
// The commit goes in the prerelease (npm drops build metadata), behind a
// hyphen so that an all-digit commit is not a numeric identifier.
function snapshotVersion(commit) {
  if (!commit) {
    try {
      commit = execFileSync("git", ["-C", __dirname, "rev-parse", "--short=12", "HEAD"], {
        encoding: "utf8", timeout: 60000, stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch (e) {
      commit = "";
    }
  }
  if (!/^[0-9a-f]{7,40}$/.test(commit)) {
    commit = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  }
  return "0.0.0-devel-" + commit.slice(0, 12);
}

const here = __dirname;
const main = JSON.parse(fs.readFileSync(path.join(here, "toolguard", "package.json"), "utf8"));
main.version = version;
for (const dep of Object.keys(main.optionalDependencies)) main.optionalDependencies[dep] = version;

fs.mkdirSync(out, { recursive: true });
const mainDir = path.join(out, "toolguard");
fs.mkdirSync(path.join(mainDir, "bin"), { recursive: true });
fs.copyFileSync(path.join(here, "toolguard", "bin", "toolguard.js"), path.join(mainDir, "bin", "toolguard.js"));
fs.chmodSync(path.join(mainDir, "bin", "toolguard.js"), 0o755);
fs.copyFileSync(path.join(here, "README.md"), path.join(mainDir, "README.md"));
fs.writeFileSync(path.join(mainDir, "package.json"), JSON.stringify(main, null, 2) + "\n");

for (const spec of bins) {
  const [bin, os, arch, serveBin] = spec.split(":");
  if (!bin || !goos[os] || !goarch[arch]) usage("bad binary spec " + JSON.stringify(spec));
  const name = "@toolguard/" + goos[os] + "-" + goarch[arch];
  if (!(name in main.optionalDependencies)) usage(name + " is not an optionalDependency of toolguard");
  const dir = path.join(out, goos[os] + "-" + goarch[arch]);
  const exe = os === "windows" ? "toolguard.exe" : "toolguard";
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.copyFileSync(bin, path.join(dir, "bin", exe));
  fs.chmodSync(path.join(dir, "bin", exe), 0o755);
  const files = ["bin/" + exe];
  if (serveBin) {
    const serveExe = os === "windows" ? "toolguard-serve.exe" : "toolguard-serve";
    fs.copyFileSync(serveBin, path.join(dir, "bin", serveExe));
    fs.chmodSync(path.join(dir, "bin", serveExe), 0o755);
    files.push("bin/" + serveExe);
  }
  const pkg = {
    name,
    version,
    description: "The toolguard binary for " + goos[os] + " " + goarch[arch] + " (installed by the toolguard package)",
    license: main.license,
    repository: main.repository,
    os: [goos[os]],
    cpu: [goarch[arch]],
    files,
    preferUnplugged: true,
  };
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  console.log(dir);
}
console.log(mainDir);
