// Writes patch.json: pi 1.6's unified patch (jsdiff 8's createTwoFilesPatch with file headers only, as
// its edit tool calls it) for every case of editdiff.json, plus a few of its own. Run from this
// directory with Node and pi 1.6.0's node_modules:
//   NODE_PATH=/opt/pi/pi16/node_modules node patch.mjs
import { readFileSync, writeFileSync } from "fs";
import { createRequire } from "module";
const require = createRequire(process.env.NODE_PATH + "/");
const Diff = require("diff");
const cases = JSON.parse(readFileSync("editdiff.json", "utf8")).map((c) => ({ old: c.old, new: c.new, context: c.context }));
cases.push(
  { old: "a\nb\nc", new: "a\nB\nc", context: 4 },
  { old: "a\nb\nc\n", new: "a\nb\nc", context: 4 },
  { old: "a\nb", new: "a\nb\nc\n", context: 4 },
  { old: "", new: "x\n", context: 4 },
  { old: "x\n", new: "", context: 4 },
  { old: "package main\n\nfunc add(a, b int) int { return a + b }\n", new: "package main\n\nfunc add(a, b int) int { return b + a }\n", context: 4 },
);
for (const c of cases) {
  c.patch = Diff.createTwoFilesPatch("src/f.go", "src/f.go", c.old, c.new, undefined, undefined, { context: c.context, headerOptions: Diff.FILE_HEADERS_ONLY });
}
writeFileSync("patch.json", JSON.stringify(cases, null, 1) + "\n");
console.log(cases.length, "cases");
