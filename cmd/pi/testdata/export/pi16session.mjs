// Loads a session file with pi 1.6.0's own SessionManager, writes pi's JSONL export of it (the code
// behind pi's /export file.jsonl) to the second argument, and prints what pi read: the session's
// id, cwd, leaf, entry count and the context messages it would send.
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [input, output] = process.argv.slice(2);
const pkg = process.env.PI_PKG;
const load = (rel) => import(pathToFileURL(join(pkg, "dist", "core", rel)).href);
const { SessionManager } = await load("session-manager.js");
const { exportSessionToJsonl } = await load("session-export.js");

const sm = SessionManager.open(input, dirname(output));
const text = (m) => {
  const c = m.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return m.summary ?? m.output ?? "";
  return c.map((b) => b.type === "text" ? b.text : b.type === "toolCall" ? `[${b.name}]` : `[${b.type}]`).join("");
};
exportSessionToJsonl(sm, output);
console.log(JSON.stringify({
  id: sm.getSessionId(),
  cwd: sm.getCwd(),
  leafId: sm.getLeafId(),
  entries: sm.getEntries().length,
  messages: sm.buildSessionContext().messages.map((m) => ({ role: m.role, text: text(m) })),
}));
