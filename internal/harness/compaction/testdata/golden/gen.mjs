// Generates session.jsonl (a deterministic session tree) and golden.json (what pi 0.73.1's own
// compaction code computes for it). See README.md for how to run it.
import { createHash } from "crypto";
import { writeFileSync } from "fs";
import { join, dirname } from "path";
import { fileURLToPath } from "url";

const dist = process.env.PI_DIST;
if (!dist) throw new Error("set PI_DIST to the prepared copy of pi-coding-agent's dist directory");
const C = await import(join(dist, "core/compaction/index.js"));
const S = await import(join(dist, "core/session-manager.js"));
const M = await import(join(dist, "core/messages.js"));
const here = dirname(fileURLToPath(import.meta.url));

// ---------- a deterministic session ----------
let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const lorem = ["alpha", "beta", "gamma", "délta", "epsilon", "zeta 😀", "eta", "theta", "iota", "kappa", "λ", "mu"];
const text = (n) => Array.from({ length: n }, () => pick(lorem)).join(" ");

let counter = 0;
let clock = Date.UTC(2025, 0, 1, 10, 0, 0);
const entries = [];
const byId = new Map();
let leaf = null;
function append(e) {
  counter++;
  clock += 1000;
  const entry = { type: e.type, id: counter.toString(16).padStart(8, "0"), parentId: leaf, timestamp: new Date(clock).toISOString(), ...e };
  entries.push(entry);
  byId.set(entry.id, entry);
  leaf = entry.id;
  return entry.id;
}
const usage = (input, output) => ({ input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
const msg = (message) => append({ type: "message", message: { ...message, timestamp: clock + 1000 } });
const user = (content) => msg({ role: "user", content });
const assistant = (content, u, stopReason = "stop", extra = {}) =>
  msg({ role: "assistant", content, api: "openai-completions", provider: "test", model: "test-model", usage: u, stopReason, ...extra });
const result = (id, name, content, isError = false) => msg({ role: "toolResult", toolCallId: id, toolName: name, content, isError });

const files = ["src/main.go", "src/parser.go", "README.md", "docs/ünïcode.md", "a.txt", "Z.txt", "src/😀.go"];
let tokens = 500;
let call = 0;
function turn(i) {
  if (i % 3 === 0) user(`request ${i}: ${text(5 + Math.floor(rnd() * 40))}`);
  else if (i % 3 === 1) user([{ type: "text", text: `blocks ${i} ` }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }, { type: "text", text: text(8) }]);
  else user([{ type: "text", text: `plain ${i}: ${text(20)}` }]);
  const steps = 1 + Math.floor(rnd() * 4);
  for (let s = 0; s < steps; s++) {
    const name = pick(["read", "read", "edit", "write", "bash", "grep"]);
    const id = `call_${++call}`;
    let args;
    switch (name) {
      case "read": args = rnd() < 0.5 ? { path: pick(files) } : { offset: 10, path: pick(files), limit: 2.5e1, "2": "two", "10": ["x", { b: 1, a: null }] }; break;
      case "edit": args = { path: pick(files), edits: [{ oldText: text(3), newText: text(4) }] }; break;
      case "write": args = { path: pick(files), content: text(30) + "\n\"quoted\"\t\u2028end" }; break;
      case "bash": args = { command: `go test ./... # ${text(2)}`, timeout: 1.5 }; break;
      default: args = { pattern: "func \\w+", path: 7 };
    }
    const content = [];
    if (rnd() < 0.4) content.push({ type: "thinking", thinking: text(15), thinkingSignature: "reasoning_content" });
    if (rnd() < 0.5) content.push({ type: "text", text: text(10) });
    content.push({ type: "toolCall", id, name, arguments: args });
    if (rnd() < 0.2) content.push({ type: "toolCall", id: id + "b", name: "read", arguments: { path: pick(files) } });
    tokens += 300 + Math.floor(rnd() * 900);
    assistant(content, usage(tokens, 80), "toolUse");
    const long = rnd() < 0.3;
    const out = long ? "x".repeat(1999) + "😀" + text(400) : text(20 + Math.floor(rnd() * 60));
    const rc = [{ type: "text", text: out }];
    if (rnd() < 0.15) rc.push({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
    result(id, name, rc, rnd() < 0.1);
    if (content.length > 1 && content[content.length - 1].id === id + "b") result(id + "b", "read", [{ type: "text", text: text(12) }]);
  }
  const r = rnd();
  if (r < 0.1) assistant([{ type: "text", text: text(5) }], usage(0, 0), "aborted", { errorMessage: "Operation aborted" });
  else if (r < 0.15) assistant([], usage(0, 0), "error", { errorMessage: "429 rate limited" });
  tokens += 100;
  assistant([{ type: "text", text: `answer ${i}: ${text(10 + Math.floor(rnd() * 80))}` }], usage(tokens, 120));
  if (i % 5 === 4) msg({ role: "bashExecution", command: "ls -la", output: i % 2 ? text(30) : "", exitCode: i % 3, cancelled: i % 7 === 0, truncated: false, excludeFromContext: i % 10 === 9 });
  if (i % 6 === 5) append({ type: "model_change", provider: "test", modelId: "test-model" });
  if (i % 8 === 7) append({ type: "thinking_level_change", thinkingLevel: pick(["low", "high"]) });
  if (i % 9 === 8) append({ type: "custom_message", customType: "note", content: i % 2 ? `note ${text(6)}` : [{ type: "text", text: `block note ${text(6)}` }], display: true, details: { n: i } });
  if (i % 7 === 6) append({ type: "label", targetId: leaf, label: `mark ${i}` });
}

for (let i = 0; i < 14; i++) turn(i);
// a side branch from an earlier assistant message, left behind with a branch summary at its end
const fork = entries.filter((e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "stop")[6].id;
const mainLeaf = leaf;
leaf = fork;
for (let i = 100; i < 104; i++) turn(i);
const sideLeaf = leaf;
leaf = mainLeaf;
append({ type: "branch_summary", fromId: sideLeaf, summary: "The user explored a side branch.\n\n<read-files>\nside.md\n</read-files>", details: { readFiles: ["side.md"], modifiedFiles: ["side.go"] } });
for (let i = 14; i < 22; i++) turn(i);
// an earlier compaction, keeping a few entries before it
const kept = entries.filter((e) => e.type === "message" && e.message.role === "user" && e.parentId)[18].id;
append({ type: "compaction", summary: "## Goal\nEarlier work.\n\n<read-files>\nold.md\n</read-files>", firstKeptEntryId: kept, tokensBefore: 12345, details: { readFiles: ["old.md", "src/main.go"], modifiedFiles: ["old.go"] } });
for (let i = 22; i < 34; i++) turn(i);
// the last turn: a long run of tool calls after the latest request
user("now refactor the parser and run the tests");
for (let s = 0; s < 6; s++) {
  const id = `call_last_${s}`;
  tokens += 900;
  assistant([{ type: "toolCall", id, name: s % 2 ? "edit" : "read", arguments: { path: "src/parser.go" } }], usage(tokens, 50), "toolUse");
  result(id, s % 2 ? "edit" : "read", [{ type: "text", text: text(250) }]);
}
assistant([{ type: "text", text: "Done: the parser is refactored." }], usage(tokens + 200, 40));

const header = { type: "session", version: 3, id: "0196f7a2-0000-7000-8000-000000000001", timestamp: new Date(Date.UTC(2025, 0, 1, 10)).toISOString(), cwd: "/work/proj" };
writeFileSync(join(here, "session.jsonl"), [header, ...entries].map((e) => JSON.stringify(e)).join("\n") + "\n");

// ---------- what pi computes ----------
const getEntry = (id) => byId.get(id);
const getBranch = (id) => {
  const path = [];
  for (let e = byId.get(id); e; e = e.parentId ? byId.get(e.parentId) : undefined) path.unshift(e);
  return path;
};
const tree = { getEntry, getBranch };
const sha = (s) => createHash("sha256").update(s).digest("hex");
const golden = { mainLeaf: leaf, sideLeaf, estimates: {}, findCutPoint: [], compactions: [], branchSummaries: [] };

for (const e of entries) if (e.type === "message") golden.estimates[e.id] = C.estimateTokens(e.message);
const path = getBranch(leaf);
const ctx = S.buildSessionContext(path);
golden.context = { count: ctx.messages.length, estimate: C.estimateContextTokens(ctx.messages), serialized: C.serializeConversation(M.convertToLlm(ctx.messages)) };
for (const keep of [0, 100, 1000, 5000, 20000, 1e9]) {
  const cp = C.findCutPoint(path, 0, path.length, keep);
  golden.findCutPoint.push({ keep, ...cp });
}

globalThis.__requests = [];
globalThis.__answer = (req) => ({ role: "assistant", content: [{ type: "text", text: `S${req.prompt.length}` }], stopReason: "stop", usage: usage(1, 1) });
const model = { id: "test-model", provider: "test", api: "openai-completions", reasoning: true, contextWindow: 128000, maxTokens: 8192 };
let fullPrompts = 0;
const ks = [];
for (let k = 20; k < path.length; k += 23) ks.push(k);
ks.push(path.length);
for (const k of ks) {
  const prefix = path.slice(0, k);
  for (const keep of [300, 2000, 20000]) {
    const settings = { enabled: true, reserveTokens: 4000, keepRecentTokens: keep };
    const prep = C.prepareCompaction(prefix, settings);
    const item = { leaf: prefix[prefix.length - 1].id, keep, prep: null };
    if (prep) {
      item.prep = {
        firstKeptEntryId: prep.firstKeptEntryId,
        isSplitTurn: prep.isSplitTurn,
        tokensBefore: prep.tokensBefore,
        previousSummary: prep.previousSummary ?? "",
        summarize: prep.messagesToSummarize.map((m) => m.role),
        prefix: prep.turnPrefixMessages.map((m) => m.role),
        files: C.computeFileLists(prep.fileOps),
      };
      globalThis.__requests = [];
      const res = await C.compact(prep, model, "key", undefined, keep === 2000 ? "keep the tests green" : undefined, undefined, "medium");
      item.result = res;
      item.requests = globalThis.__requests.map((r) => {
        const out = { systemPromptSha: sha(r.systemPrompt), promptSha: sha(r.prompt), maxTokens: r.maxTokens, reasoning: r.reasoning };
        if (fullPrompts < 4 && r.prompt.length < 60000) out.prompt = r.prompt;
        return out;
      });
      fullPrompts++;
    }
    golden.compactions.push(item);
  }
}

const targets = [path[5].id, fork, path[path.length - 1].id];
for (const target of targets) {
  for (const contextWindow of [0, 3000]) {
    const { entries: es, commonAncestorId } = C.collectEntriesForBranchSummary(tree, sideLeaf, target);
    globalThis.__requests = [];
    const res = await C.generateBranchSummary(es, { model: { ...model, contextWindow }, apiKey: "key", reserveTokens: 1000, customInstructions: contextWindow ? "focus on files" : undefined });
    golden.branchSummaries.push({
      from: sideLeaf, target, contextWindow, commonAncestorId, entries: es.map((e) => e.id), result: res,
      requests: globalThis.__requests.map((r) => ({ promptSha: sha(r.prompt), maxTokens: r.maxTokens, reasoning: r.reasoning, prompt: r.prompt.length < 30000 ? r.prompt : undefined })),
    });
  }
}
writeFileSync(join(here, "golden.json"), JSON.stringify(golden, null, 1) + "\n");
console.log(`${entries.length} entries, ${golden.compactions.length} compactions, ${golden.branchSummaries.length} branch summaries`);
