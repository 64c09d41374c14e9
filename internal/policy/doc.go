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
// chooses them (policyflags.go). The targets of a non-shell call are
// the paths protocol decoded into call.Paths (a tool's path fields, and an
// MCP input's path arguments: protocol.AddMCPPaths), made absolute there
// (protocol.Abs); Evaluate only matches them, and Env.Glob, given by the
// caller (cmd/toolguard/glob.go), is the only way it sees the file system.
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
// compile and merge (compileAndMerge) → index → choose the rule source.
// A Policy holds one ruleSource (rule(i), len()): compiledRules, compiled
// at load, or lazyRules, each rule decoded and compiled the first time a
// call reaches it. Evaluate only ever asks the source for the ordinals
// the index gives it; Rules() ([]*Rule, error) asks for all of them.
//
// With LoadOptions.Lazy (the hook; callers that only Evaluate):
//
//   - The defaults are the build-time decoded ones (builtin_gen.go:
//     defaults.toml decoded at build time, with its index and hashes; `go
//     generate ./internal/policy` writes it; the embedded TOML is not
//     rehashed at run time, TestBuiltinGenerated fails while it is stale).
//     Their rules are not compiled at load: merge sees each one's head
//     (ruleHeads: id, decision, priority, lock, provenance), and a
//     default compiles when a call first reaches it.
//
//   - The index is per layer: the defaults' is generated (builtinIndex),
//     its ordinals mapped to where merge put each default (one a later
//     layer replaced or disabled drops out), merged with an index built
//     from the other layers' rules (layeredIndex). So the defaults + a
//     project layer cost what the defaults alone cost, plus decoding and
//     compiling the project layer's few rules. The other layers are still
//     compiled at load: a rule of theirs that does not compile fails the
//     load, as it does without Lazy.
//
//   - loadLazy: a single trusted materialized file: the header and the
//     index are read and checked, and a block of rule lines is decoded and
//     compiled the first time a call reaches one of its rules.
//
// Each shortcut answers only when it is sure and otherwise leaves the
// work to the full road: loadLazy returns nil for a file that is not
// exactly the indexed layout, and compileAndMerge compiles every default
// now when the generated index does not fit (layeredIndex). A rule that
// fails to decode or compile on demand fails the calls that reach it
// (settings.on_error), never the others silently.
//
// TestLazyBuiltin, TestLayeredMatchesFull (seven layer sets: new rules, a
// default replaced or disabled, builtin = false, an untrusted layer, two
// layers) and TestLazy10kMatchesFull check that the shortcuts decide
// exactly as the full road does: decision, reason, rule, matches in
// order, every target.
//
// # Limits
//
//   - A TOML project layer is decoded (BurntSushi/toml, and the key scan
//     that positions problems) on every hook call: with the per-layer
//     index that is most of what a project layer still costs (see
//     docs/performance.md, "Round 5").
//   - A deny's audit line needs Policy.Hash: with layers besides the
//     defaults it is computed over the settings and every rule's spec
//     (hashPolicy; the defaults' digests generated, none compiled), as
//     json.Marshal writes them; the
//     defaults alone use the generated hash, a materialized file the
//     hash it stores.
//   - A materialized line that is byte for byte a default rule's line
//     (the same SHA-256 as the generated one) is taken as the build-time
//     decoded rule (builtinLine) instead of decoded again.
//   - Shell commands are judged by what shellparse can see statically;
//     what a program does with its input at run time (a script it
//     downloads, a file it sources later) is outside the policy, and
//     settings.on_dynamic / on_unparsable decide commands that cannot be
//     resolved.
//   - A materialized file is trusted as a whole: it is checked (checksum,
//     index) before use, but its rules are only as strict as the layers
//     it was made from.
package policy
