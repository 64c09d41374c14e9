// Package npm holds no Go code: npm/pack.js assembles the npm packages
// (the toolguard launcher and one @toolguard/<platform>-<arch> package per
// binary), and this package's test runs it as .ci/release and a developer
// do, against a stand-in binary.
package npm
