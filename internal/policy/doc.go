// Package policy loads a layered toolguard policy and decides tool calls
// with it.
//
// # The contract
//
// A policy is a list of layers, in order: the embedded defaults
// (defaults.toml, unless LoadOptions.NoBuiltin), then the files the caller
// gives as Sources — TOML written by people, or the JSON that `toolguard
// materialize` writes (one rule a line, with an index). Policy.Evaluate is
// a pure function of the policy, one call.Call and an Env: it never reads
// a file, the clock or the environment, so the same inputs give the same
// Result (decision, the rule that decided, every target and why). The
// package does no I/O of its own beyond what a caller hands it as a
// Source's Data or File: cmd/toolguard reads the files (readfile.go) and
// chooses them (policyflags.go).
//
// Merging only tightens unless a layer is trusted: an untrusted layer (a
// project file not trusted with `toolguard trust`) may add asks and
// denies, never an allow that loosens what an earlier layer decided, and
// locked rules and settings cannot be overridden by a later layer. Every
// failure fails closed: a file that does not decode, a rule that does not
// compile, an unreadable rule block of a materialized file is an error
// (Load) or a Result decided by settings.on_error (Evaluate), never a
// silent allow.
//
// # The load road
//
// Load reads as: decode every layer (decode: TOML or materialized JSON,
// both with encoding/json or BurntSushi/toml, unknown keys refused) →
// drop the builtin layer when a materialized file already holds it →
// compile and merge (compileAndMerge) → index. Two shortcuts skip the
// compile of rules a call never reaches; each answers only when it is
// sure and returns nil otherwise, and Load then takes the full road:
//
//   - loadLazy: a single trusted materialized file with LoadOptions.Lazy
//     (the hook): the header and the index are read and checked, and a rule
//     block is decoded and compiled the first time a call reaches one of its
//     rules.
//   - loadLazyBuiltin: the defaults alone: the rules come from
//     builtin_gen.go (defaults.toml decoded at build time, with its index
//     and hashes; `go generate ./internal/policy` writes it), each compiled
//     when a call first reaches it. The embedded TOML is not rehashed at
//     run time: TestBuiltinGenerated fails while builtin_gen.go is stale.
//
// TestLazyBuiltin and TestLazy10kMatchesFull check that the
// shortcuts decide exactly as the full road does.
//
// # Limits
//
//   - The defaults + a project layer take the full road: every default
//     rule is compiled and the whole index built on each hook call (see
//     docs/performance.md, "Round 4", for what that costs).
//   - Shell commands are judged by what shellparse can see statically;
//     what a program does with its input at run time (a script it
//     downloads, a file it sources later) is outside the policy, and
//     settings.on_dynamic / on_unparsable decide commands that cannot be
//     resolved.
//   - A materialized file is trusted as a whole: it is checked (checksum,
//     index) before use, but its rules are only as strict as the layers
//     it was made from.
package policy
