// Regenerates pi-colors.json: pi 1.6.0's own colour conversions (pi-tui's parseColor, colorToHex,
// foregroundAnsi, colorToOklch) and its built-in themes, resolved token by token, as fixtures for
// color_test.go. Run: node testdata/pi-colors.mjs <pi-tui dir> <pi-coding-agent dir> > testdata/pi-colors.json
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [tuiDir, agentDir] = process.argv.slice(2);
const tui = await import(pathToFileURL(join(tuiDir, "dist/index.js")).href);

const inputs = ["#0af", "#00AAFF", "#000", "#fff", "#123456", "#808080", "#7f7f7f", "#5f87ff", "#343541", "#eeeeee",
	"#0a0a0a", "#f5f5f5", "#9c9c9c", "#283228"];
for (let h = 0; h < 360; h += 23) {
	for (const s of [0, 0.07, 0.35, 0.62, 0.8, 0.93, 1]) {
		for (const l of [0, 0.12, 0.24, 0.5, 0.67, 0.89, 1]) {
			inputs.push(`okhsl(${h} ${Math.round(s * 100)}% ${Math.round(l * 100)}%)`);
		}
	}
}
inputs.push("okhsl(234deg 0.03 0.89)", "OKHSL(-30 50% 50%)", "okhsl(400 50% 50%)", "okhsl(.5e2 1e-1 5e-1)");
for (let h = 0; h < 360; h += 37) {
	for (const c of [0, 0.05, 0.1, 0.2, 0.37]) {
		for (const l of ["0%", "25%", "62%", "80%", "100%", "0.5"]) {
			inputs.push(`oklch(${l} ${c} ${h})`);
		}
	}
}
inputs.push("oklch(62% 0.1 200deg)", "oklch(100% 0.3 150)", "oklch(0.7 0.4 -40)");
const colors = inputs.map((input) => {
	const color = tui.parseColor(input);
	const ansi256 = /;5;(\d+)m$/.exec(tui.foregroundAnsi(color, "256color"))[1];
	return { input, hex: tui.colorToHex(color), ansi256: Number(ansi256), lightness: tui.colorToOklch(color).l };
});
const indexed = [0, 7, 8, 15, 16, 100, 231, 232, 255].map((index) => ({
	index,
	hex: tui.colorToHex(tui.indexedColor(index)),
}));

// The built-in themes as pi resolves them: variables, then fallbacks, then the colour.
const themes = {};
for (const name of ["dark", "light"]) {
	const json = JSON.parse(readFileSync(join(agentDir, "dist/modes/interactive/theme", `${name}.json`), "utf-8"));
	const resolve = (v) => (typeof v === "number" || v === "" || v.startsWith("#") || /^ok(lch|hsl)\(/i.test(v) ? v : resolve(json.vars[v]));
	const out = {};
	for (const [token, value] of Object.entries(json.colors)) {
		const v = resolve(value);
		out[token] = v === "" ? "" : tui.colorToHex(tui.parseColor(v));
	}
	themes[name] = out;
}
process.stdout.write(`${JSON.stringify({ colors, indexed, themes })}\n`);
