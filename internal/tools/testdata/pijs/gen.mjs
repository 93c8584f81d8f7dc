// Generates golden files from pi 0.73.1's own truncate.js and edit-diff.js, so the Go tests compare
// pi-go against pi's real behaviour: editapply.json beside this script, truncate.json in
// internal/tools/output/testdata, editdiff.json in internal/textdiff/testdata. Not run by `go test`.
//
// Prepare a folder where pi's modules can be imported, then run this script with that folder:
//   mkdir -p /tmp/pijs/node_modules && cd /tmp/pijs
//   ln -s <jsdiff 8.x package dir> node_modules/diff        (pi 0.73.1 depends on diff ^8.0.2)
//   cp <pi-coding-agent>/dist/core/tools/{edit-diff,path-utils,truncate}.js .
//   echo '{"type":"module"}' > package.json
//   node internal/tools/testdata/pijs/gen.mjs /tmp/pijs
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const lib = process.argv[2];
if (!lib) throw new Error("usage: node gen.mjs <folder with pi's modules>");
const trunc = await import(join(lib, "truncate.js"));
const ed = await import(join(lib, "edit-diff.js"));
const here = dirname(fileURLToPath(import.meta.url));

// A small deterministic generator (xorshift32) so the files are reproducible.
let seed = 0x2545f491;
function rnd(n) {
	seed ^= seed << 13;
	seed >>>= 0;
	seed ^= seed >>> 17;
	seed ^= seed << 5;
	seed >>>= 0;
	return seed % n;
}
function pick(arr) {
	return arr[rnd(arr.length)];
}
function save(name, value) {
	writeFileSync(join(here, name), `${JSON.stringify(value)}\n`);
}

// --- truncate.js ---
const words = ["a", "bb", "héllo", "日本語", "😀x", "", "line", "x".repeat(20), "\t  ", "ö".repeat(9)];
function randomText(maxLines) {
	const n = rnd(maxLines) + 1;
	const lines = [];
	for (let i = 0; i < n; i++) {
		const k = rnd(4);
		let line = "";
		for (let j = 0; j < k; j++) line += pick(words);
		lines.push(line);
	}
	return lines.join("\n");
}
const truncCases = [];
for (let i = 0; i < 400; i++) {
	const content = randomText(14);
	const maxLines = rnd(10) + 1;
	const maxBytes = rnd(60) + 1;
	truncCases.push({
		content,
		maxLines,
		maxBytes,
		head: trunc.truncateHead(content, { maxLines, maxBytes }),
		tail: trunc.truncateTail(content, { maxLines, maxBytes }),
	});
}
for (const content of ["", "\n", "abc\n", "x".repeat(70), `${"x".repeat(70)}\nshort`, `short\n${"é".repeat(40)}`]) {
	for (const [maxLines, maxBytes] of [[1, 10], [2, 50], [3, 64], [1, 80]]) {
		truncCases.push({
			content,
			maxLines,
			maxBytes,
			head: trunc.truncateHead(content, { maxLines, maxBytes }),
			tail: trunc.truncateTail(content, { maxLines, maxBytes }),
		});
	}
}
const sizes = [0, 1, 1023, 1024, 1075, 1076, 1280, 1331, 1332, 51200, 51199, 52377, 1048575, 1048576, 1101004, 1101005,
	1310720, 5 * 1024 * 1024 + 52428, 104857600];
const lineCases = [];
for (const line of ["abc", "x".repeat(10), "日本語日本語日本語日本", `${"x".repeat(9)}😀`, `${"x".repeat(8)}😀`, "😀😀😀😀😀😀", ""]) {
	for (const max of [1, 5, 9, 10, 11]) {
		lineCases.push({ line, max, result: trunc.truncateLine(line, max) });
	}
}
save("../../output/testdata/truncate.json", {
	truncate: truncCases,
	formatSize: sizes.map((n) => ({ n, text: trunc.formatSize(n) })),
	truncateLine: lineCases,
});

// --- edit-diff.js: generateDiffString ---
const lineAlphabet = ["a", "b", "c", "d", "", "x y", "}", "{", "  return;"];
function randomLines(n) {
	const out = [];
	for (let i = 0; i < n; i++) out.push(pick(lineAlphabet));
	return out;
}
function mutate(lines) {
	const out = [...lines];
	const ops = rnd(4) + 1;
	for (let i = 0; i < ops; i++) {
		const at = rnd(out.length + 1);
		switch (rnd(3)) {
			case 0:
				out.splice(at, rnd(3), ...randomLines(rnd(3)));
				break;
			case 1:
				out.splice(at, 0, ...randomLines(rnd(4) + 1));
				break;
			default:
				out.splice(at, rnd(4) + 1);
		}
	}
	return out;
}
const diffCases = [];
for (let i = 0; i < 400; i++) {
	const base = randomLines(rnd(30));
	const next = mutate(base);
	const oldText = base.join("\n") + (rnd(2) ? "\n" : "");
	const newText = next.join("\n") + (rnd(2) ? "\n" : "");
	if (oldText === newText) continue;
	diffCases.push({ old: oldText, new: newText, context: 4, ...ed.generateDiffString(oldText, newText) });
}
{
	// Long files with distant changes exercise the "..." skips and wide line numbers.
	const base = Array.from({ length: 1200 }, (_, i) => `line ${i + 1}`);
	const next = [...base];
	next[5] = "changed 6";
	next.splice(600, 2, "inserted", "lines", "here");
	next.splice(1100, 1);
	diffCases.push({ old: base.join("\n"), new: next.join("\n"), context: 4, ...ed.generateDiffString(base.join("\n"), next.join("\n")) });
	diffCases.push({ old: base.join("\n"), new: next.join("\n"), context: 2, ...ed.generateDiffString(base.join("\n"), next.join("\n"), 2) });
}
save("../../../textdiff/testdata/editdiff.json", diffCases);

// --- edit-diff.js: normalizeForFuzzyMatch and applyEditsToNormalizedContent ---
const fuzzyStrings = [
	"line one   \nline two\t\nthree",
	"\u2018single\u2019 \u201Cdouble\u201D \u201Alow\u201B \u201Elow\u201F",
	"dash\u2010\u2011\u2012\u2013\u2014\u2015\u2212end",
	"sp\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000x",
	"ＡＢＣ１２３ cafe\u0301 ﬁ ①",
	"trail\u00A0\nnbsp\u3000\n\u2028x\u2029 \ufeff\n\u1680y\u1680",
	"\r\ncr \r\nz\u000b\u000c",
	"你好，世界\n你好（世界）",
];
const fuzzyCases = fuzzyStrings.map((text) => ({ text, normalized: ed.normalizeForFuzzyMatch(text) }));
function apply(content, edits) {
	try {
		return { ok: ed.applyEditsToNormalizedContent(content, edits, "f.txt") };
	} catch (e) {
		return { error: e.message };
	}
}
const applyInputs = [
	["Hello, world!", [{ oldText: "world", newText: "testing" }]],
	["Hello, world!", [{ oldText: "nonexistent", newText: "x" }]],
	["foo foo foo", [{ oldText: "foo", newText: "bar" }]],
	["line one   \nline two  \nline three\n", [{ oldText: "line one\nline two\n", newText: "replaced\n" }]],
	["你好，世界\n你好（世界）\n", [{ oldText: "你好,世界\n你好(世界)\n", newText: "你好，pi\n你好(pi)\n" }]],
	["ＡＢＣ１２３\ncafe\u0301\n", [{ oldText: "ABC123\ncafé\n", newText: "XYZ789\ncoffee\n" }]],
	["console.log(\u2018hello\u2019);\n", [{ oldText: "console.log('hello');", newText: "console.log('world');" }]],
	["const msg = \u201CHello World\u201D;\n", [{ oldText: 'const msg = "Hello World";', newText: 'const msg = "Goodbye";' }]],
	["range: 1\u20135\nbreak\u2014here\n", [{ oldText: "range: 1-5\nbreak-here", newText: "range: 10-50\nbreak--here" }]],
	["hello\u00A0world\n", [{ oldText: "hello world", newText: "hello universe" }]],
	["const x = 'exact';\nconst y = 'other';\n", [{ oldText: "const x = 'exact';", newText: "const x = 'changed';" }]],
	["completely different content\n", [{ oldText: "this does not exist", newText: "replacement" }]],
	["hello world   \nhello world\n", [{ oldText: "hello world", newText: "replaced" }]],
	["hello\nworld\n---\nhello\nworld\n", [{ oldText: "hello\nworld\n", newText: "replaced\n" }]],
	["abc", [{ oldText: "", newText: "x" }]],
	["abc", [{ oldText: "b", newText: "x" }, { oldText: "", newText: "y" }]],
	["abc", [{ oldText: "b", newText: "b" }]],
	["abc", [{ oldText: "b", newText: "b" }, { oldText: "c", newText: "c" }]],
	["one two three", [{ oldText: "one two", newText: "1 2" }, { oldText: "two three", newText: "2 3" }]],
	["one two three four", [{ oldText: "four", newText: "4" }, { oldText: "one", newText: "1" }]],
	["one two three", [{ oldText: "one", newText: "1" }, { oldText: "zzz", newText: "2" }]],
	["one two two", [{ oldText: "one", newText: "1" }, { oldText: "two", newText: "2" }]],
	["a \u201Cq\u201D  \nb\nc \n", [{ oldText: "b", newText: "B" }, { oldText: 'a "q"', newText: "A" }]],
	["a \u201Cq\u201D  \nb\nc \n", [{ oldText: "b\n", newText: "B\n" }]],
	["x\ny\n", [{ oldText: "x\r\ny", newText: "X\r\nY" }]],
	["keep   \nfix \u2013 me\n", [{ oldText: "fix - me", newText: "fixed" }]],
	["abcabc", [{ oldText: "abc", newText: "x" }, { oldText: "bca", newText: "y" }]],
	["aXbXc", [{ oldText: "aX", newText: "1" }, { oldText: "Xc", newText: "2" }]],
];
save("editapply.json", {
	normalize: fuzzyCases,
	apply: applyInputs.map(([content, edits]) => ({ content, edits, result: apply(content, edits) })),
});
console.log(`wrote ${truncCases.length} truncate, ${diffCases.length} diff, ${applyInputs.length} apply cases`);
