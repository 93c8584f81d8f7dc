// Computes what pi 1.6.0's own compaction code prepares for session.jsonl (the cases golden.json
// holds for pi 0.73.1) into golden16.json. See README.md for how to run it.
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
const golden = { estimates: {}, findCutPoint: [], compactions: [], branchSummaries: [] };
for (const e of entries) if (e.type === "message") golden.estimates[e.id] = C.estimateTokens(e.message);
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
  }
  golden.compactions.push(item);
}
// Branch summaries: which messages fit the budget (1.6 counts user images, 0.73.1 did not).
for (const b of old.branchSummaries) {
  const es = b.entries.map((id) => byId.get(id));
  const budget = (b.contextWindow || 128000) - 1000;
  const now = B.prepareBranchEntries(es, budget);
  const then = B073.prepareBranchEntries(es, budget);
  golden.branchSummaries.push({ target: b.target, contextWindow: b.contextWindow, messages: now.messages.length,
    totalTokens: now.totalTokens, sameAs073: now.messages.length === then.messages.length });
}
writeFileSync(join(here, "golden16.json"), JSON.stringify(golden, null, 1) + "\n");
console.log(`${golden.compactions.length} preparations`);
