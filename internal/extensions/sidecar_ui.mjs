// --- ctx.ui in pi-go's terminal (mode "tui") --------------------------------------------------------
// Appended to sidecar.mjs (one script). pi-tui components (footer, header, widget factories, custom()
// dialogs) live here: they render at the terminal's width (ui_resize) and their lines are told to
// pi-go, which draws them in place; keys for a custom() dialog come back as ui_input, in the bytes a
// terminal sends, so pi-tui's matchesKey reads them as in pi.

const screen = { width: 0, height: 0 };

/** A component's line as pi-tui's TUI writes it: its cursor markers (APC sequences) resolved, the
 * hardware cursor's taken out and the fake cursor's drawn in reverse video. */
const terminalLine = (line) =>
	String(line).replaceAll("\x1b_pi:c\x07", "").replaceAll("\x1b_pi:fc\x07", "\x1b[7m").replaceAll("\x1b_pi:/fc\x07", "\x1b[27m");
let terminalTheme = plainTheme;
let availableThemes = []; // the names ctx.ui.setTheme can switch to (ui_resize)
let editorText = ""; // the editor's text, mirrored by pi-go (ui_editor) for getEditorText()
const mounted = new Map(); // slot → { component, kind, key?, placement?, sent: last lines told }
const statuses = new Map(); // setStatus texts, for a custom footer's footerData
let renderQueued = false;
let customSeq = 0;
let keybindingsLoad;

// Components keep the theme they were given: it follows pi-go's current one.
const themeProxy = new Proxy(
	{},
	{
		get(_target, key) {
			const value = terminalTheme[key];
			return typeof value === "function" ? value.bind(terminalTheme) : value;
		},
	},
);

/** pi's Theme methods over pi-go's escape sequences (the Theme class's own fields, filled by hand). */
function buildTheme(spec) {
	const t = Object.create(pi.Theme?.prototype ?? Object.prototype);
	Object.assign(t, {
		name: spec.name,
		mode: "truecolor",
		fgAnsi: new Map(Object.entries(spec.fg ?? {})),
		bgAnsi: new Map(Object.entries(spec.bg ?? {})),
		dimTokens: new Set(),
		concreteColors: {},
		defaultForegroundTokens: [],
		defaultBackgroundTokens: [],
		ownAppearance: spec.appearance,
	});
	const wrap = (open, close) => (text) => (spec.plain ? String(text) : `${open}${text}${close}`);
	t.fg = (token, text) => {
		const open = t.fgAnsi.get(token);
		return spec.plain || !open ? String(text) : `${open}${text}\x1b[39m`;
	};
	t.bg = (token, text) => {
		const open = t.bgAnsi.get(token);
		return spec.plain || !open ? String(text) : `${open}${text}\x1b[49m`;
	};
	t.bold = wrap("\x1b[1m", "\x1b[22m");
	t.italic = wrap("\x1b[3m", "\x1b[23m");
	t.underline = wrap("\x1b[4m", "\x1b[24m");
	t.inverse = wrap("\x1b[7m", "\x1b[27m");
	t.strikethrough = wrap("\x1b[9m", "\x1b[29m");
	t.getFgAnsi = (token) => (spec.plain ? "" : (t.fgAnsi.get(token) ?? ""));
	t.getBgAnsi = (token) => (spec.plain ? "" : (t.bgAnsi.get(token) ?? ""));
	t.getColorMode = () => "truecolor";
	t.style = (text, options = {}) => {
		let s = String(text);
		if (typeof options.fg === "string") s = t.fg(options.fg, s);
		if (typeof options.bg === "string") s = t.bg(options.bg, s);
		for (const attr of ["bold", "italic", "underline", "inverse", "strikethrough"]) if (options[attr]) s = t[attr](s);
		return s;
	};
	return t;
}

function onResize(msg) {
	screen.width = msg.width;
	screen.height = msg.height;
	if (msg.theme) {
		terminalTheme = buildTheme(msg.theme);
		availableThemes = msg.theme.available ?? availableThemes;
		// pi's own components (DynamicBorder, …) read the global theme.
		globalThis[Symbol.for("@earendil-works/pi-coding-agent:theme")] = terminalTheme;
		globalThis[Symbol.for("@mariozechner/pi-coding-agent:theme")] = terminalTheme;
	}
	for (const m of mounted.values()) m.component.invalidate?.();
	renderNow();
}

function requestRender() {
	if (renderQueued) return;
	renderQueued = true;
	setImmediate(() => {
		renderQueued = false;
		renderNow();
	});
}

/** Renders every component and tells pi-go the ones whose lines changed. */
function renderNow() {
	if (!screen.width) return; // pi-go has not said its size yet: rendered when it does
	for (const [slot, m] of mounted) {
		let lines;
		try {
			lines = (m.component.render(screen.width) ?? []).map(terminalLine);
		} catch (err) {
			lines = [];
			write({ type: "error", extensionPath: m.path, event: `render ${slot}`, error: errorText(err) });
		}
		const json = JSON.stringify(lines);
		if (json === m.sent) continue;
		m.sent = json;
		tell("ui", { method: "component", slot, kind: m.kind, key: m.key, placement: m.placement, lines });
	}
}

function mount(slot, component, fields) {
	unmount(slot, false);
	if (!component) return;
	mounted.set(slot, { component, ...fields });
	requestRender();
}

function unmount(slot, tellHost = true) {
	const m = mounted.get(slot);
	if (!m) return;
	mounted.delete(slot);
	try {
		m.component.dispose?.();
	} catch {
		// a component failing to clean up is no reason to keep it on screen
	}
	if (tellHost) tell("ui", { method: "component", slot, kind: m.kind, key: m.key, remove: true });
}

const tuiHost = {
	requestRender,
	get terminal() {
		return { columns: screen.width, rows: screen.height, setTitle: (title) => tell("ui", { method: "setTitle", title }) };
	},
	get columns() {
		return screen.width;
	},
	get rows() {
		return screen.height;
	},
	setFocus() {},
	invalidate() {},
};

/** The branch of the project's git checkout, read from .git/HEAD as pi's footer does. */
function gitBranch() {
	for (let dir = init.cwd; ; dir = path.dirname(dir)) {
		try {
			let head = path.join(dir, ".git");
			if (fs.statSync(head).isFile()) {
				const gitdir = fs.readFileSync(head, "utf8").match(/^gitdir:\s*(.+)$/m)?.[1];
				if (!gitdir) return null;
				head = path.resolve(dir, gitdir.trim());
			}
			const ref = fs.readFileSync(path.join(head, "HEAD"), "utf8").trim();
			return ref.startsWith("ref: refs/heads/") ? ref.slice("ref: refs/heads/".length) : "detached";
		} catch {
			if (path.dirname(dir) === dir) return null;
		}
	}
}

const footerData = {
	getGitBranch: gitBranch,
	getExtensionStatuses: () => statuses,
	getAvailableProviderCount: () => 1,
	onBranchChange: () => () => {},
};

function keybindings() {
	keybindingsLoad ??= (async () => {
		try {
			const mod = await import(pathToFileURL(path.join(init.options.piPackage, "dist", "core", "keybindings.js")).href);
			return mod.KeybindingsManager.create(init.agentDir);
		} catch {
			return { matches: () => false, getKeys: () => [], getEffectiveConfig: () => ({}) };
		}
	})();
	return keybindingsLoad;
}

/** pi's renderers name keys through pi-tui's global keybindings (keyHint, keyText in an entry or
 * message renderer): as pi's interactive mode does, they are set to the user's keybindings.json, the
 * file pi-go's terminal reads too. The pi-tui module is the one the pi package resolves, so that
 * pi's own keyHint sees them. */
async function installKeybindings() {
	const kb = await keybindings();
	try {
		const manifest = path.join(init.options.piPackage, "package.json");
		const deps = JSON.parse(fs.readFileSync(manifest, "utf8")).dependencies ?? {};
		const name = Object.keys(deps).find((d) => d.endsWith("/pi-tui"));
		if (!name) return;
		const tui = await import(pathToFileURL(createRequire(manifest).resolve(name)).href);
		tui.setKeybindings?.(kb);
	} catch (err) {
		console.error(`pi-go sidecar: keybindings not set: ${errorText(err)}`);
	}
}

/** custom(): the component takes the editor's place until it calls done. Overlays are shown the same way. */
function custom(factory, options) {
	const slot = `custom:${++customSeq}`;
	return new Promise((resolve, reject) => {
		let closed = false;
		const done = (value) => {
			if (closed) return;
			closed = true;
			unmount(slot);
			resolve(value);
		};
		keybindings()
			.then((kb) => factory(tuiHost, themeProxy, kb, done))
			.then(
				(component) => {
					if (closed) return;
					mount(slot, component, { kind: "custom", overlay: !!options?.overlay });
					if (options?.overlay) options?.onHandle?.({ focus() {}, unfocus() {}, setHidden() {}, isHidden: () => false, isFocused: () => true, hide: () => done(undefined) });
				},
				(err) => {
					closed = true;
					reject(err);
				},
			);
	});
}

function onInput(msg) {
	const m = mounted.get(msg.component);
	if (!m?.component.handleInput) return;
	try {
		m.component.handleInput(msg.data);
	} catch (err) {
		write({ type: "error", event: `input ${msg.component}`, error: errorText(err) });
	}
	requestRender();
}

async function runShortcut(msg) {
	for (const ext of runner.extensions ?? []) {
		for (const [key, shortcut] of ext.shortcuts ?? []) {
			if (key.toLowerCase() === String(msg.name).toLowerCase()) {
				await shortcut.handler(runner.createContext());
				return null;
			}
		}
	}
	throw new Error(`No extension registered the shortcut ${msg.name}`);
}

/** ctx.ui in pi-go's TUI: the RPC-like base (dialogs, notify) plus what a terminal can show. */
function terminalUIContext(base) {
	const ui = {
		...base,
		setStatus(key, text) {
			if (text === undefined) statuses.delete(key);
			else statuses.set(key, text);
			base.setStatus(key, text);
		},
		setWidget(key, content, options) {
			const slot = `widget:${key}`;
			if (content === undefined || Array.isArray(content)) {
				unmount(slot, false);
				base.setWidget(key, content, options);
				return;
			}
			mount(slot, content(tuiHost, themeProxy), { kind: "widget", key, placement: options?.placement ?? "aboveEditor" });
		},
		setFooter(factory) {
			if (!factory) unmount("footer");
			else mount("footer", factory(tuiHost, themeProxy, footerData), { kind: "footer" });
		},
		setHeader(factory) {
			if (!factory) unmount("header");
			else mount("header", factory(tuiHost, themeProxy), { kind: "header" });
		},
		custom,
		setWorkingMessage: (message) => tell("ui", { method: "setWorkingMessage", message }),
		setWorkingVisible: (visible) => tell("ui", { method: "setWorkingVisible", visible: visible !== false }),
		// No options restores pi-go's spinner (indicator null).
		setWorkingIndicator: (options) =>
			tell("ui", { method: "setWorkingIndicator", indicator: options ? { frames: [...(options.frames ?? [])], intervalMs: options.intervalMs } : null }),
		setHiddenThinkingLabel: (label) => tell("ui", { method: "setHiddenThinkingLabel", label }),
		pasteToEditor(text) {
			ui.setEditorText(text);
		},
		setEditorText(text) {
			editorText = String(text ?? "");
			base.setEditorText(text);
		},
		getEditorText: () => editorText,
		setEditorComponent,
		getEditorComponent: () => editorFactory,
		onTerminalInput(handler) {
			inputListeners.add(handler);
			if (inputListeners.size === 1) tell("ui", { method: "terminalInput", active: true });
			return () => {
				if (inputListeners.delete(handler) && inputListeners.size === 0) tell("ui", { method: "terminalInput", active: false });
			};
		},
		addAutocompleteProvider(factory) {
			autocompleteProvider = factory(autocompleteProvider);
			tell("ui", { method: "autocomplete", active: true });
		},
		getAllThemes: () => availableThemes.map((name) => ({ name, path: undefined })),
		getTheme: (name) => (name === terminalTheme.name ? themeProxy : undefined),
		setTheme(themeOrName) {
			// pi-go switches by name: a Theme object is one of its themes (ctx.ui.theme, getTheme()).
			const name = typeof themeOrName === "string" ? themeOrName : themeOrName?.name;
			if (typeof themeOrName !== "string" && !availableThemes.includes(name)) {
				return { success: false, error: "pi-go switches only to its themes by name" };
			}
			if (!availableThemes.includes(name)) return { success: false, error: `Theme not found: ${name}` };
			tell("ui", { method: "setTheme", name });
			return { success: true };
		},
	};
	Object.defineProperty(ui, "theme", { get: () => themeProxy, enumerable: true });
	return ui;
}

// --- setEditorComponent: an extension's editor in the place of pi-go's ----------------------------
// The editor lives here (slot "editor"); pi-go forwards it every key and keeps its own editor's text
// a copy of this one's (editorChange), so what pi-go does with the text (getEditorText, Escape's
// restore, /commands) works on it. Submitting goes through pi-go's prompt pipeline (editorSubmit);
// the app keys a CustomEditor hands to its action handlers run pi-go's actions (editorAction).

let editorFactory;

// --- onTerminalInput: listeners offered every key first -------------------------------------------
const inputListeners = new Set();

/** terminal_input: the listeners' verdict on a key's bytes, chained as pi-tui chains them. */
function terminalInput(msg) {
	let current = String(msg.data ?? "");
	for (const listener of [...inputListeners]) {
		let result;
		try {
			result = listener(current);
		} catch (err) {
			write({ type: "error", event: "terminal_input", error: errorText(err) });
			continue;
		}
		if (result?.consume) return { consume: true };
		if (result?.data !== undefined) current = String(result.data);
	}
	return current.length === 0 ? { consume: true } : { data: current };
}

// --- addAutocompleteProvider: providers stacked on pi-go's own completion ------------------------
// The base stands for pi-go's completion, which runs in pi-go: it suggests nothing here, so a
// provider that defers to it leaves the list to pi-go. pi-go applies a chosen item itself
// (the prefix replaced by its value, as pi's base provider does).
const baseAutocomplete = {
	getSuggestions: async () => null,
	applyCompletion: (lines, cursorLine, cursorCol, item, prefix) => {
		const line = lines[cursorLine] ?? "";
		const start = Math.max(0, cursorCol - prefix.length);
		const out = [...lines];
		out[cursorLine] = line.slice(0, start) + item.value + line.slice(cursorCol);
		return { lines: out, cursorLine, cursorCol: start + item.value.length };
	},
	shouldTriggerFileCompletion: () => true,
};
let autocompleteProvider = baseAutocomplete;

/** complete_editor: the stacked providers' suggestions at the cursor (a column in runes from pi-go). */
async function completeEditor(msg, signal) {
	if (autocompleteProvider === baseAutocomplete) return null;
	const lines = msg.lines ?? [""];
	const line = lines[msg.cursorLine ?? 0] ?? "";
	const col = [...line].slice(0, msg.cursorCol ?? 0).join("").length;
	const r = await autocompleteProvider.getSuggestions(lines, msg.cursorLine ?? 0, col, { signal, force: false });
	if (!r?.items?.length) return null;
	return {
		prefix: String(r.prefix ?? ""),
		items: r.items.map((it) => ({ value: String(it.value ?? ""), label: it.label, description: it.description })),
	};
}
let editorSeq = 0;

// The app actions pi wires into a CustomEditor (its defaultEditor's handlers).
const editorActions = [
	"app.clear", "app.suspend", "app.thinking.cycle", "app.model.cycleForward", "app.model.cycleBackward",
	"app.model.select", "app.tools.expand", "app.thinking.toggle", "app.editor.external", "app.message.followUp",
	"app.message.dequeue", "app.session.new", "app.session.tree", "app.session.fork", "app.session.resume",
];

function setEditorComponent(factory) {
	editorFactory = factory;
	const seq = ++editorSeq;
	if (!factory) {
		unmount("editor");
		return;
	}
	keybindings().then((kb) => {
		if (seq !== editorSeq) return; // replaced meanwhile
		let editor;
		try {
			const editorTheme = {
				borderColor: (text) => terminalTheme.fg("borderMuted", text),
				selectList: pi.getSelectListTheme?.() ?? {},
			};
			editor = factory(tuiHost, editorTheme, kb);
		} catch (err) {
			write({ type: "error", event: "setEditorComponent", error: errorText(err) });
			return;
		}
		const action = (name) => () => tell("ui", { method: "editorAction", action: name, text: editor.getExpandedText?.() ?? editor.getText?.() ?? "" });
		editor.onSubmit = (text) => tell("ui", { method: "editorSubmit", text });
		editor.onChange = (text) => {
			editorText = text;
			tell("ui", { method: "editorChange", text });
		};
		if ("actionHandlers" in editor && editor.actionHandlers instanceof Map) {
			editor.onEscape ??= action("app.interrupt");
			editor.onCtrlD ??= action("app.exit");
			for (const name of editorActions) if (!editor.actionHandlers.has(name)) editor.actionHandlers.set(name, action(name));
		}
		editor.setText?.(editorText);
		mount("editor", editor, { kind: "editor" });
	});
}

/** ui_editor while an extension's editor is shown: pi-go changed the text (cleared it after a
 * submit, restored a queued message, set_editor_text). */
function syncEditorComponent(text) {
	const editor = mounted.get("editor")?.component;
	if (!editor || (editor.getExpandedText?.() ?? editor.getText?.()) === text) return;
	editor.setText?.(text);
	requestRender();
}

/** A custom message drawn by its extension's registerMessageRenderer, after pi's blank line. */
function renderMessage(msg) {
	const renderer = runner.getMessageRenderer?.(msg.message?.customType);
	if (!renderer) return null;
	const options = { expanded: !!msg.expanded, outputPad: 1, keyText: pi.keyText ?? (() => ""), keyHint: pi.keyHint ?? ((_k, d) => d) };
	const component = renderer(msg.message, options, themeProxy);
	if (!component) return null; // pi draws its own box then
	return { lines: ["", ...(component.render(msg.width) ?? []).map(String)] };
}
