package main

import "testing"

// TestRoutesUnknownDeletePath: a recursive delete whose path is only known
// at run time asks (rm-recursive-unknown-path) through the real hook path,
// for Claude Code and Gemini CLI; literal and temp-directory look-alikes
// pass.
func TestRoutesUnknownDeletePath(t *testing.T) {
	runRoutes(t, []routeCase{
		{cmd: `rm -rf "$X"`, want: "ask"},
		{cmd: `rm -rf "$X/etc"`, want: "ask"},
		{cmd: `X=$(cat name); rm -rf "build/$X"`, want: "ask"},
		{cmd: `f(){ printf ../../etc; }; rm -rf safe/$(f)`, want: "ask"},
		{cmd: "rm -r -f build/`cat n`", want: "ask"},
		{cmd: `rm -rf "$TMPDIR/../etc"`, want: "ask"},
		{cmd: `rm -rf "${TMPDIR:-/}"`, want: "deny"},     // the default / is seen: rm-recursive-root
		{cmd: `bash -c 'rm -rf "$1"' _ x`, want: "pass"}, // $1 is x
		// look-alikes
		{cmd: `X=build; rm -rf "$X"`, want: "pass"},
		{cmd: `rm -rf "$TMPDIR/test-dir"`, want: "pass"},
		{cmd: `rm -rf ${TMPDIR}/x`, want: "pass"},
		{cmd: `rm -f "$X"`, want: "pass"},
		{cmd: "rm -rf build dist", want: "pass"},
		{cmd: `echo "rm -rf $X"`, want: "pass"},
	})
}
