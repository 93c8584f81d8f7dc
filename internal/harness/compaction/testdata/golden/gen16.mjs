// Computes what pi 1.6.0's own compaction code prepares for session.jsonl (the cases golden.json
// holds for pi 0.73.1) into golden16.json. See README.md for how to run it.
import { createHash } from "crypto";
import { readFileSync, writeFileSync } from "fs";
import { join, dirname } from "path";
import { fileURLToPath } from "url";

const dist = process.env.PI16_DIST;
const dist073 = process.env.PI073_DIST;
if (!dist || !dist073) throw new Error("set PI16_DIST and PI073_DIST to pi 1.6.0's and 0.73.1's pi-coding-agent dist directories");
const C = await import(join(dist, "core/compaction/compaction.js"));
const U = await import(join(dist, "core/compaction/utils.js"));
const B = await import(join(dist, "core/compaction/branch-summarization.js"));
const B073 = await import(join(dist073, "core/compaction/branch-summarization.js"));
const S = await import(join(dist, "core/session-manager.js"));
const M = await import(join(dist, "core/messages.js"));
const here = dirname(fileURLToPath(import.meta.url));

const entries = readFileSync(join(here, "session.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type !== "session");
const byId = new Map(entries.map((e) => [e.id, e]));
const getBranch = (id) => {
  const path = [];
  for (let e = byId.get(id); e; e = e.parentId ? byId.get(e.parentId) : undefined) path.unshift(e);
  return path;
};
const old = JSON.parse(readFileSync(join(here, "golden.json"), "utf8"));
const path = getBranch(old.mainLeaf);
const model = { id: "test-model", provider: "test", api: "openai-completions", reasoning: true, contextWindow: 128000, maxTokens: 8192 };
const golden = { estimates: {}, findCutPoint: [], compactions: [], branchSummaries: [] };
for (const e of entries) if (e.type === "message") golden.estimates[e.id] = C.estimateTokens(e.message);
// The conversation as 1.6's summary requests quote it (no thinking, text blocks joined by newlines).
golden.serialized = U.serializeConversation(M.convertToLlm(S.buildSessionContext(entries, old.mainLeaf).messages));

// Summary requests go to a recording stand-in for the session's stream function, answering
// "S<prompt length>" as the Go test's stream does.
const sha = (s) => createHash("sha256").update(s).digest("hex");
let requests = [];
const streamFn = async (_model, context, options) => {
  const system = context.messages.find((m) => m.role === "system");
  const prompt = context.messages.find((m) => m.role === "user").content[0].text;
  requests.push({ system: system ? system.content : "", prompt, maxTokens: options.maxTokens ?? null, reasoning: options.reasoning ?? null });
  const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  return { result: async () => ({ role: "assistant", content: [{ type: "text", text: `S${prompt.length}` }], stopReason: "stop", usage }) };
};
let fullPrompts = 0;
const recorded = (limit) => requests.map((r) => {
  const out = { systemPromptSha: sha(r.system), promptSha: sha(r.prompt), maxTokens: r.maxTokens, reasoning: r.reasoning };
  if (fullPrompts < 4 && r.prompt.length < limit) out.prompt = r.prompt;
  return out;
});
for (const keep of [0, 100, 1000, 5000, 20000, 1e9]) {
  golden.findCutPoint.push({ keep, ...C.findCutPoint(path, 0, path.length, keep) });
}
for (const c of old.compactions) {
  const prefix = path.slice(0, path.findIndex((e) => e.id === c.leaf) + 1);
  const prep = C.prepareCompaction(prefix, { enabled: true, reserveTokens: 4000, keepRecentTokens: c.keep });
  const item = { leaf: c.leaf, keep: c.keep, prep: null };
  if (prep) {
    item.prep = {
      firstKeptEntryId: prep.firstKeptEntryId,
      isSplitTurn: prep.isSplitTurn,
      tokensBefore: prep.tokensBefore,
      previousSummary: prep.previousSummary ?? "",
      summarize: prep.messagesToSummarize.map((m) => m.role),
      prefix: prep.turnPrefixMessages.map((m) => m.role),
      files: U.computeFileLists(prep.fileOps),
    };
    requests = [];
    const res = await C.compact(prep, model, "key", undefined, c.keep === 2000 ? "keep the tests green" : undefined, undefined, "medium", streamFn);
    item.result = { summary: res.summary, firstKeptEntryId: res.firstKeptEntryId, tokensBefore: res.tokensBefore, details: res.details };
    item.requests = recorded(60000);
    fullPrompts++;
  }
  golden.compactions.push(item);
}
// Branch summaries: which messages fit the budget (1.6 counts user images, 0.73.1 did not).
for (const b of old.branchSummaries) {
  const es = b.entries.map((id) => byId.get(id));
  const budget = (b.contextWindow || 128000) - 1000;
  const now = B.prepareBranchEntries(es, budget);
  const then = B073.prepareBranchEntries(es, budget);
  requests = [];
  const res = await B.generateBranchSummary(es, { model: { ...model, contextWindow: b.contextWindow }, apiKey: "key", reserveTokens: 1000,
    thinkingLevel: "high", customInstructions: b.contextWindow ? "focus on files" : undefined, streamFn });
  golden.branchSummaries.push({ target: b.target, contextWindow: b.contextWindow, messages: now.messages.length,
    totalTokens: now.totalTokens, sameAs073: now.messages.length === then.messages.length,
    result: { summary: res.summary, readFiles: res.readFiles, modifiedFiles: res.modifiedFiles },
    requests: requests.map((r) => ({ systemPromptSha: sha(r.system), promptSha: sha(r.prompt), maxTokens: r.maxTokens, reasoning: r.reasoning,
      prompt: r.prompt.length < 30000 ? r.prompt : undefined })) });
}
writeFileSync(join(here, "golden16.json"), JSON.stringify(golden, null, 1) + "\n");
console.log(`${golden.compactions.length} preparations`);
