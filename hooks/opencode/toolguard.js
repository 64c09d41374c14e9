// toolguard opencode plugin (written by `toolguard install --provider opencode`).
// It runs toolguard before every tool call and blocks the call when toolguard denies it.
// Remove it with: toolguard uninstall --provider opencode (same --scope).
import { spawn } from "node:child_process";

const COMMAND = "toolguard hook --provider opencode";
const TIMEOUT_MS = 30000;

function runHook(payload, cwd) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn("/bin/sh", ["-c", COMMAND], { cwd, stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      resolve({ error: String(e) });
      return;
    }
    let out = "", err = "", done = false;
    const finish = (r) => { if (!done) { done = true; clearTimeout(timer); resolve(r); } };
    const timer = setTimeout(() => { child.kill("SIGKILL"); finish({ error: "timed out after " + TIMEOUT_MS + " ms" }); }, TIMEOUT_MS);
    child.stdout.on("data", (d) => { if (out.length < 1048576) out += d; });
    child.stderr.on("data", (d) => { if (err.length < 65536) err += d; });
    child.on("error", (e) => finish({ error: String(e) }));
    child.on("close", (code, signal) => finish({ code, signal, out, err }));
    child.stdin.on("error", () => {});
    child.stdin.end(payload);
  });
}

function blocked(why) {
  return new Error("toolguard: " + why + "; the tool call was blocked");
}

export const Toolguard = async ({ directory, worktree }) => ({
  "tool.execute.before": async (input, output) => {
    const cwd = directory || worktree || process.cwd();
    const payload = JSON.stringify({
      session_id: input.sessionID,
      cwd,
      hook_event_name: "PreToolUse",
      tool_name: input.tool,
      tool_input: (output && output.args) || {},
      tool_use_id: input.callID,
      client: "opencode",
    });
    const r = await runHook(payload, cwd);
    if (r.error) throw blocked("the hook did not run (" + r.error + ")");
    if (r.code === 2) throw new Error((r.err || "").trim() || "toolguard: denied");
    if (r.code !== 0) throw blocked("the hook failed (exit " + r.code + (r.signal ? ", " + r.signal : "") + "): " + (r.err || "").trim().slice(0, 500));
    const text = (r.out || "").trim();
    if (text === "") return;
    let reply;
    try { reply = JSON.parse(text); } catch (e) { throw blocked("unreadable hook reply"); }
    const h = (reply && reply.hookSpecificOutput) || {};
    if (h.permissionDecision === "allow") {
      if (h.updatedInput && typeof h.updatedInput === "object" && output && output.args) {
        for (const k of Object.keys(output.args)) delete output.args[k];
        Object.assign(output.args, h.updatedInput);
      }
      return;
    }
    if (h.permissionDecision === "deny" || h.permissionDecision === "ask") {
      throw new Error(h.permissionDecisionReason || "toolguard: denied");
    }
    throw blocked("hook reply without a decision");
  },
});
