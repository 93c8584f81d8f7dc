// Prints, for each leaf id given, the model context pi builds for that leaf of a session file
// (pi's own buildSessionContext), as JSON: {"<leaf>": [messages…], …}. Run with pi 1.6.0's Node:
//   node projection.mjs <pi coding-agent package dir> <session.jsonl> <leaf id>…
// (see testdata/pi16/README.md, "session-projection").
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [pkg, file, ...leaves] = process.argv.slice(2);
const sm = await import(pathToFileURL(join(pkg, "dist/core/session-manager.js")).href);
const entries = sm.loadEntriesFromFile(file).filter((e) => e.type !== "session");
const out = {};
for (const leaf of leaves) {
	out[leaf] = sm.buildSessionContext(entries, leaf).messages;
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
