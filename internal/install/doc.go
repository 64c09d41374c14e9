// Package install merges toolguard's hook entry into the settings or hook
// files of the coding agents that run it (install and uninstall), and reports
// which agents on a machine are guarded by it (doctor).
//
// Contract:
//
//   - The package never reads environment variables and never prints. The
//     caller passes the home directory, the project directory and the exact
//     hook command line; Install and Uninstall return a Result that describes
//     what changed, for the caller to print.
//   - A settings file is edited as a generic JSON value that keeps the key
//     order of the existing file and its indentation (two spaces, a tab, or a
//     compact one-line file) and line endings. Everything that is not
//     toolguard's own handler is left as it was, modulo that formatting.
//   - Toolguard's handler is recognized by its command line: a word naming a
//     program called toolguard (any directory, optional .exe) followed by the
//     word hook (IsToolguardCommand), or one running Options.Program (a
//     renamed toolguard the caller asked) followed by hook. A re-install with
//     the same command is a no-op; with a different command the old command
//     is replaced in place. Install also writes the command on the agent's
//     prompt, session and post-tool events (agent.extra) unless PreToolOnly.
//   - A file that does not parse (or that holds comments, or whose "hooks" has
//     an unexpected type) is refused: the error names file:line:col and says
//     that nothing was changed.
//   - Before an existing file is modified, its bytes are copied to
//     <file>.toolguard.bak (overwriting an earlier backup: the backup is always
//     the file as it was just before toolguard's latest change) with the file's
//     own mode. Writes are atomic (temporary file in the same directory, then
//     rename); a symlinked settings file is written through to its target.
//     Existing files keep their mode; new files are 0644 and new directories
//     0755 (a new file holds only the hook entry, and project settings are
//     often committed).
//   - Uninstall removes only toolguard's handlers. A matcher group, an event
//     array, the "hooks" object — and for Cursor and Copilot a then lonely
//     "version" — are removed only when toolguard's removal emptied them.
//     A file left with nothing in it is deleted (an empty settings file means
//     no settings); when the result is what the backup beside the file holds
//     (or the file goes and the backup is empty or missing), that backup is
//     deleted and no new one is written.
//
// Limits: JSON with comments (Gemini accepts them) is read by the doctor but
// never rewritten; Codex hooks are installed into hooks.json, never into
// config.toml; the doctor reads whether Codex's config.toml holds hook
// trust records at all, not whether one matches the toolguard hook; it
// cannot see Cursor's third-party-hooks switch, managed settings, or
// CODEX_HOME/COPILOT_HOME overrides. Probe runs hook commands (sh -c) with
// the environment its caller passes.
//
// System mode (system.go, system_codex.go, system_doctor.go): SystemInstall
// writes the root-owned binary, the platform policy and each agent's
// managed or system settings (under SystemOptions.Root), recording every
// change in a manifest that SystemUninstall reverses; SystemDoctor proves
// such an install for one user by running a probe with that user's
// credentials (ProbeAs, ProbeAccess). It refuses symlinked files and
// directories others can write; it runs no shell and reads no environment.
//
// opencode has no hook file: Install writes toolguard's own plugin
// (opencode.go; .opencode/plugins/toolguard.js or
// ~/.config/opencode/plugins/toolguard.js) holding the command, refuses to
// overwrite a file of that name it did not write, and Uninstall deletes only
// its own.
package install
