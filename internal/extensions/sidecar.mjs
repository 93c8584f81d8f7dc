// pi-go's extension sidecar: runs pi's TypeScript and JavaScript extensions with the installed pi
// package's own loader and ExtensionRunner, and speaks pi-go's extension protocol
// (docs/extension-protocol.md) on stdin and stdout. Embedded in the pi-go binary and written to its
// cache directory at run time. stdout carries the protocol only: console output goes to stderr.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";

const PROTOCOL = 2;
// stdout is the protocol's: what extensions write there themselves (console.log, terminal escape
// sequences) goes to stderr instead, where it cannot break a line of the protocol.
const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
const write = (msg) => protocolWrite(JSON.stringify(msg) + "\n");
for (const name of ["log", "info", "debug", "warn"]) console[name] = (...args) => console.error(...args);

let state = {};
let init;
let runner;
let pi;
const pendingRequests = new Map(); // our requests to pi-go, by id
const running = new Map(); // pi-go's calls being run, by id: their AbortControllers
let nextRequest = 0;
let notifyChain = Promise.resolve();

/** Asks pi-go and waits for the answer. */
function request(method, params) {
	const id = `s${++nextRequest}`;
	return new Promise((resolve, reject) => {
		pendingRequests.set(id, { resolve, reject });
		write({ type: "request", id, method, params });
	});
}

/** Tells pi-go something it does not answer. */
const tell = (method, params) => write({ type: "request", method, params });

const errorText = (err) => (err instanceof Error ? err.message : String(err));

// --- the session manager: pi's own, on the session file pi-go writes, re-read when it changed ----

// An in-memory session's lines (--no-session), as pi-go hands them over (session_entries): the
// header, then the entries. ctx.sessionManager is rebuilt from them when read after a change.
const memory = { lines: [], leafId: "", changed: false };

function onSessionEntries(d) {
	if (d.header) memory.lines = [d.header];
	memory.lines.push(...(d.entries ?? []));
	memory.leafId = d.leafId ?? "";
	memory.changed = true;
}

function memorySessionManager() {
	const sm = pi.SessionManager.inMemory(init.cwd, undefined, memory.lines.length > 0 ? memory.lines.slice() : undefined);
	// pi-go's leaf may be an earlier entry (tree navigation): pi's manager takes the last one.
	if (memory.leafId && sm.getLeafId?.() !== memory.leafId) sm.branch(memory.leafId);
	else if (!memory.leafId && memory.lines.length > 1) sm.resetLeaf?.();
	return sm;
}

function liveSessionManager() {
	let sm;
	let stamp = "";
	let openFile;
	const current = () => {
		const file = state.sessionFile || init.sessionFile;
		if (file !== openFile) {
			openFile = file;
			sm = undefined;
			stamp = "";
		}
		if (!file) {
			if (memory.changed || !sm) {
				memory.changed = false;
				sm = memorySessionManager();
			}
			return sm;
		}
		let now = "";
		try {
			const st = fs.statSync(file);
			now = `${st.size}:${st.mtimeMs}`;
		} catch {
			// pi-go writes the file with the first answer: until then the session is empty.
			sm ??= pi.SessionManager.inMemory(init.cwd);
			return sm;
		}
		if (now !== stamp) {
			stamp = now;
			try {
				sm = pi.SessionManager.open(file, undefined, init.cwd);
			} catch (err) {
				console.error(`pi-go sidecar: cannot read ${file}: ${errorText(err)}`);
				sm ??= pi.SessionManager.inMemory(init.cwd);
			}
		}
		return sm;
	};
	return new Proxy(
		{},
		{
			get(_target, key) {
				const target = current();
				const value = target[key];
				return typeof value === "function" ? value.bind(target) : value;
			},
		},
	);
}

async function modelRegistry() {
	try {
		if (typeof pi.ModelRegistry.create === "function" && pi.AuthStorage) {
			return pi.ModelRegistry.create(pi.AuthStorage.create(path.join(init.agentDir, "auth.json")), path.join(init.agentDir, "models.json"));
		}
		if (pi.ModelRuntime) {
			const runtime = await pi.ModelRuntime.create({
				authPath: path.join(init.agentDir, "auth.json"),
				modelsPath: path.join(init.agentDir, "models.json"),
				allowModelNetwork: false,
				refreshOnCreate: false,
			});
			return new pi.ModelRegistry(runtime);
		}
	} catch (err) {
		console.error(`pi-go sidecar: no model registry: ${errorText(err)}`);
	}
	return undefined;
}

// --- ctx.ui as in pi's RPC mode: dialogs are requests, the rest is told ----------------------------

function dialog(opts, fallback, params, parse) {
	if (opts?.signal?.aborted) return Promise.resolve(fallback);
	return new Promise((resolve) => {
		let timer;
		let settled = false;
		const finish = (value) => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			opts?.signal?.removeEventListener("abort", onAbort);
			resolve(value);
		};
		const onAbort = () => finish(fallback);
		opts?.signal?.addEventListener("abort", onAbort, { once: true });
		if (opts?.timeout) timer = setTimeout(() => finish(fallback), opts.timeout);
		request("ui", params).then(
			(r) => finish(r ? parse(r) : fallback),
			() => finish(fallback),
		);
	});
}

// The theme of a UI without a terminal: every style leaves the text as it is.
const plainTheme = new Proxy(
	{},
	{
		get: (_target, key) => (key === "then" ? undefined : (...args) => (typeof args.at(-1) === "string" ? args.at(-1) : "")),
	},
);

const pick = (r) => (r.cancelled ? undefined : "value" in r ? r.value : undefined);

function uiContext() {
	return {
		select: (title, options, opts) => dialog(opts, undefined, { method: "select", title, options, timeout: opts?.timeout }, pick),
		confirm: (title, message, opts) =>
			dialog(opts, false, { method: "confirm", title, message, timeout: opts?.timeout }, (r) => (r.cancelled ? false : !!r.confirmed)),
		input: (title, placeholder, opts) => dialog(opts, undefined, { method: "input", title, placeholder, timeout: opts?.timeout }, pick),
		editor: (title, prefill) => dialog(undefined, undefined, { method: "editor", title, prefill }, pick),
		notify: (message, type) => tell("ui", { method: "notify", message, notifyType: type }),
		setStatus: (key, text) => tell("ui", { method: "setStatus", statusKey: key, statusText: text }),
		setWidget(key, content, options) {
			if (content === undefined || Array.isArray(content)) {
				tell("ui", { method: "setWidget", widgetKey: key, widgetLines: content, widgetPlacement: options?.placement });
			}
		},
		setTitle: (title) => tell("ui", { method: "setTitle", title }),
		setEditorText: (text) => tell("ui", { method: "set_editor_text", text }),
		pasteToEditor(text) {
			this.setEditorText(text);
		},
		getEditorText: () => "",
		onTerminalInput: () => () => {},
		setWorkingMessage() {},
		setWorkingVisible() {},
		setWorkingIndicator() {},
		setHiddenThinkingLabel() {},
		setFooter() {},
		setHeader() {},
		custom: async () => undefined,
		addAutocompleteProvider() {},
		setEditorComponent() {},
		getEditorComponent: () => undefined,
		get theme() {
			return plainTheme;
		},
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "Theme switching not supported in pi-go" }),
		getToolsExpanded: () => false,
		setToolsExpanded() {},
	};
}

// --- the actions extensions call, answered by pi-go or from the state mirror ----------------------

function bind() {
	const actions = {
		sendMessage: (message, options) => tell("sendMessage", { message, options }),
		sendUserMessage: (content, options) => tell("sendUserMessage", { content, options }),
		appendEntry: (customType, data) => tell("appendEntry", { customType, data }),
		setSessionName: (name) => {
			state.sessionName = name;
			tell("setSessionName", { name });
		},
		getSessionName: () => state.sessionName,
		setLabel: (entryId, label) => tell("setLabel", { entryId, label }),
		getActiveTools: () => state.activeTools ?? [],
		getAllTools: () => state.allTools ?? [],
		getSettings: () => state.settings ?? {},
		setActiveTools: (names) => {
			state.activeTools = [...names];
			tell("setActiveTools", { names });
		},
		// pi's runtime calls it after each registerTool once the extensions are bound: pi-go hears of
		// the new tool set through a new register (after the first, which answers init).
		refreshTools: () => {
			if (registered) register([]);
		},
		getCommands: () =>
			runner.getRegisteredCommands().map((c) => ({ name: c.invocationName ?? c.name, description: c.description, source: "extension" })),
		setModel: async (model) => !!(await request("setModel", { provider: model?.provider, id: model?.id })),
		getThinkingLevel: () => state.thinkingLevel ?? "off",
		setThinkingLevel: (level) => {
			state.thinkingLevel = level;
			tell("setThinkingLevel", { level });
		},
	};
	const contextActions = {
		getModel: () => state.model,
		getScopedModels: () => state.scopedModels ?? [],
		isIdle: () => state.idle !== false,
		isProjectTrusted: () => !!state.projectTrusted,
		getSignal: () => undefined,
		abort: () => tell("abort", {}),
		hasPendingMessages: () => !!state.hasPendingMessages,
		shutdown: () => tell("shutdown", {}),
		getContextUsage: () => state.contextUsage,
		compact: (options) => {
			request("compact", { customInstructions: options?.customInstructions }).then(
				(result) => options?.onComplete?.(result),
				(err) => options?.onError?.(err instanceof Error ? err : new Error(String(err))),
			);
		},
		getSystemPrompt: () => state.systemPrompt ?? "",
		getSystemPromptOptions: () => ({ forceSystemPrompt: state.systemPrompt ?? "" }),
	};
	runner.bindCore(actions, contextActions);
	// A session replaced from a command: pi-go keeps this runner, so withSession gets a fresh
	// command context of it once pi-go has switched.
	const replaced = async (result, options) => {
		const r = { cancelled: !!result?.cancelled, ...result };
		if (!r.cancelled) await options?.withSession?.(runner.createCommandContext());
		return r;
	};
	runner.bindCommandContext?.({
		waitForIdle: () => request("waitForIdle", {}),
		newSession: async (options) => replaced(await request("newSession", { parentSession: options?.parentSession }), options),
		fork: async (entryId, options) => replaced(await request("fork", { entryId, position: options?.position }), options),
		navigateTree: async (targetId, options) => {
			const { summarize, customInstructions, replaceInstructions, label } = options ?? {};
			return { cancelled: false, ...(await request("navigateTree", { targetId, summarize, customInstructions, replaceInstructions, label })) };
		},
		switchSession: async (sessionPath, options) => replaced(await request("switchSession", { sessionPath }), options),
		reload: async () => request("reload", {}),
	});
	if (init.hasUI) {
		// In pi-go's TUI, components render here and pi-go draws their lines (sidecar_ui.mjs).
		runner.setUIContext(init.mode === "tui" ? terminalUIContext(uiContext()) : uiContext(), init.mode);
	}
	runner.onError((err) => write({ type: "error", extensionPath: err.extensionPath, event: err.event, error: err.error }));
	watchMcpServers();
}

// --- MCP servers registered with pi.registerMcpServer: pi-go's MCP manager connects them ----------

const mcpServer = (s) => ({ name: s.name, config: s.config, extensionPath: s.extensionPath });
let mcpSeq = 0;

function watchMcpServers() {
	const registry = runner.runtime?.mcpServers;
	if (typeof registry?.setChangeListener !== "function") return; // a pi without registerMcpServer
	// pi's runner reports registered servers as unconnected when no extension handles
	// mcp_servers_change; in pi-go the host connects them, so the sidecar takes the listener over: it
	// sends pi-go the whole list (seq orders the lists) and still emits the event to extensions.
	registry.setChangeListener(() => {
		const servers = registry.list();
		tell("mcpServers", { seq: ++mcpSeq, servers: servers.map(mcpServer) });
		void runner.emit({ type: "mcp_servers_change", servers });
	});
}

// --- start: load, bind, register -------------------------------------------------------------------

let loader; // pi's extension loader module (undefined: the package exports discovery only)
let eventBus; // shared by every extension this sidecar loads, as pi shares its bus
let extensionProviders; // the provider registry the runner sees, kept across runners
const failedPaths = new Set(); // entries that failed to load: not tried again (pi skips them too)

async function start(msg) {
	init = msg;
	state = msg.state ?? {};
	const pkg = msg.options?.piPackage;
	// "The running pi" is pi-go: pi's CLI is process.execPath with process.argv[1] (cli.js), which an
	// extension starts to run pi again (pi's subagent example). Set before the extensions load, as
	// they may read it then. pi's own code reads argv[1] only for its self-update, which the sidecar
	// never runs.
	if (msg.options?.cli) process.argv[1] = msg.options.cli;
	pi = await import(pathToFileURL(path.join(pkg, "dist", "index.js")).href);
	eventBus = pi.createEventBus?.();
	try {
		loader = await import(pathToFileURL(path.join(pkg, "dist", "core", "extensions", "loader.js")).href);
	} catch (err) {
		if (err?.code !== "ERR_MODULE_NOT_FOUND") throw err;
	}
	const loaded = await loadPaths(msg.paths ?? []);
	extensionProviders = providerRegistry(await modelRegistry());
	makeRunner(loaded.extensions, loaded.runtime);
	if (msg.mode === "tui") await installKeybindings();
	register(loaded.errors ?? []);
}

async function loadPaths(paths, runtime) {
	const loaded = loader
		? await loader.loadExtensions(paths, init.cwd, eventBus, runtime)
		: // A package without the loader at that path: its exported discovery, with the same paths.
			await pi.discoverAndLoadExtensions(paths, init.cwd, path.join(init.cwd, ".pi-go-no-discovery"));
	for (const e of loaded.errors ?? []) failedPaths.add(e.path);
	return loaded;
}

function makeRunner(extensions, runtime) {
	runner = new pi.ExtensionRunner(extensions, runtime, init.cwd, liveSessionManager(), extensionProviders);
	bind();
	const flags = runner.getFlags();
	for (const [name, value] of Object.entries(init.flags ?? {})) {
		const flag = flags.get(name);
		if (!flag) continue;
		runner.setFlagValue(name, flag.type === "boolean" ? value === true || value === "true" : String(value));
	}
}

/**
 * pi-go's "load": the project's extensions, once project trust is resolved. The loaded ones stay (pi
 * 1.6 keeps its pre-trust extensions too: their factories do not run again); the others join their
 * runtime, and a new runner holds them all in the order of paths. A loader that cannot share a
 * runtime (pi before 1.x) loads everything again into a fresh one.
 */
async function loadMore(paths) {
	const have = new Map(runner.extensions.map((ext) => [ext.path, ext]));
	let loaded;
	if ((loader?.loadExtensions.length ?? 0) >= 4) {
		loaded = await loadPaths(paths.filter((p) => !have.has(p) && !failedPaths.has(p)), runner.runtime);
		for (const ext of loaded.extensions) have.set(ext.path, ext);
	} else {
		loaded = await loadPaths(paths.filter((p) => !failedPaths.has(p)));
		have.clear();
		for (const ext of loaded.extensions) have.set(ext.path, ext);
	}
	const extensions = paths.map((p) => have.get(p)).filter((ext) => ext !== undefined);
	makeRunner(extensions, loaded.runtime ?? runner.runtime);
	reportLoadErrors(loaded.errors);
	register([]);
}

// reportLoadErrors reports the failures of a load after the start: a later register's errors are not
// read (docs/extension-protocol.md), so each comes as an error.
function reportLoadErrors(errors) {
	for (const e of errors ?? []) write({ type: "error", extensionPath: e.path, event: "load", error: e.error });
}

// --- project_trust: pi 1.6's limited trust context; dialogs only where pi has a user to ask -----

let runnerModule;

async function projectTrust(event) {
	const { mode = init.mode, hasUI = false, ...trustEvent } = event;
	const ask = (params, fallback, parse) => (hasUI ? dialog(undefined, fallback, params, parse) : Promise.resolve(fallback));
	const ctx = {
		cwd: event.cwd,
		mode,
		hasUI,
		ui: {
			select: (title, options) => ask({ method: "select", title, options }, undefined, pick),
			confirm: (title, message) => ask({ method: "confirm", title, message }, false, (r) => !r.cancelled && !!r.confirmed),
			input: (title, placeholder) => ask({ method: "input", title, placeholder }, undefined, pick),
			notify: (message, type) => tell("ui", { method: "notify", message, notifyType: type ?? "info" }),
		},
	};
	runnerModule ??= await import(pathToFileURL(path.join(init.options.piPackage, "dist", "core", "extensions", "runner.js")).href).catch(() => ({}));
	const emit = runnerModule.emitProjectTrustEvent ?? emitProjectTrust;
	const { result, errors } = await emit({ extensions: runner.extensions }, trustEvent, ctx);
	for (const e of errors ?? []) write({ type: "error", extensionPath: e.extensionPath, event: "project_trust", error: e.error });
	if (!result) return { trusted: "undecided" };
	// As pi reads it: anything but "yes" that is not "undecided" is a no.
	return { trusted: result.trusted === "yes" ? "yes" : "no", remember: result.remember === true };
}

// emitProjectTrust is pi 1.6's emitProjectTrustEvent, for a package that does not export it.
async function emitProjectTrust(extensionsResult, event, ctx) {
	const errors = [];
	for (const ext of extensionsResult.extensions) {
		for (const handler of ext.handlers.get("project_trust") ?? []) {
			try {
				const r = await handler(event, ctx);
				if (r.trusted === "undecided") continue;
				return { result: r, errors };
			} catch (err) {
				errors.push({ extensionPath: ext.path, error: errorText(err) });
			}
		}
	}
	return { errors };
}

// reload is pi's reload of the extension runtime (AgentSession.reload): session_shutdown with
// reason "reload" to the old extensions, whose captured contexts go stale, then the extensions
// loaded again (pi's loader reads the files anew: its module cache is off) under a new runner, on a
// new event bus, with the flag values kept, registered anew. pi-go raises session_start with reason
// "reload" once this answers.
async function reload(msg) {
	const old = runner;
	await old.emit({ type: "session_shutdown", reason: "reload" });
	const flagValues = typeof old.getFlagValues === "function" ? old.getFlagValues() : new Map();
	old.invalidate?.();
	failedPaths.clear(); // a reload tries every extension again
	eventBus = pi.createEventBus?.();
	const loaded = await loadPaths(msg.paths ?? []);
	makeRunner(loaded.extensions, loaded.runtime);
	const flags = runner.getFlags();
	for (const [name, value] of flagValues) if (flags.has(name)) runner.setFlagValue(name, value);
	reportLoadErrors(loaded.errors);
	register([]);
	return null;
}

let registered = false;

function register(loadErrors) {
	registered = true;
	const events = new Set();
	const shortcuts = [];
	const messageRenderers = new Set();
	const entryRenderers = new Set();
	for (const ext of runner.extensions ?? []) {
		for (const [name, handlers] of ext.handlers) if (handlers.length > 0) events.add(name);
		for (const [key, s] of ext.shortcuts ?? []) shortcuts.push({ key, description: s.description, extensionPath: ext.path });
		for (const type of ext.messageRenderers?.keys() ?? []) messageRenderers.add(type);
		for (const type of ext.entryRenderers?.keys() ?? []) entryRenderers.add(type);
	}
	const tools = runner.getAllRegisteredTools().map((t) => ({
		name: t.definition.name,
		label: t.definition.label,
		description: t.definition.description ?? "",
		parameters: JSON.parse(JSON.stringify(t.definition.parameters ?? { type: "object", properties: {} })),
		promptSnippet: t.definition.promptSnippet,
		promptGuidelines: t.definition.promptGuidelines,
		executionMode: t.definition.executionMode,
		extensionPath: t.sourceInfo?.path ?? t.extensionPath,
	}));
	const commands = runner.getRegisteredCommands().map((c) => ({
		name: c.invocationName ?? c.name,
		description: c.description,
		extensionPath: c.sourceInfo?.path ?? c.extensionPath,
		completes: typeof c.getArgumentCompletions === "function",
	}));
	const flags = [...runner.getFlags().values()].map((f) => ({
		name: f.name,
		type: f.type,
		description: f.description,
		default: f.default,
		extensionPath: f.extensionPath,
	}));
	write({
		type: "register",
		protocol: PROTOCOL,
		name: "pi extensions",
		events: [...events],
		tools,
		commands,
		flags,
		shortcuts,
		messageRenderers: [...messageRenderers],
		...toolRendererRegistrations(),
		entryRenderers: [...entryRenderers],
		errors: loadErrors.map((e) => ({ path: e.path, error: e.error })),
		mcpServers: (runner.runtime?.mcpServers?.list?.() ?? []).map(mcpServer),
		markdownTransformer: markdownTransformerRegistration(),
	});
	markdownSent = JSON.stringify(markdownTransformerRegistration() ?? null);
}

// --- events and calls ------------------------------------------------------------------------------

const changed = (a, b) => JSON.stringify(a) !== JSON.stringify(b);

async function answerEvent(event, signal, id) {
	switch (event.type) {
		case "tool_call": {
			const before = structuredClone(event.input);
			const r = await runner.emitToolCall(event);
			const out = { block: !!r?.block, reason: r?.reason, terminate: r?.terminate };
			if (changed(before, event.input)) out.input = event.input;
			return out;
		}
		case "tool_result":
			return (await runner.emitToolResult(event)) ?? null;
		case "context":
		case "context_with_system":
			// pi 1.6's emitContext runs both phases; pi-go raises each at its own point, so each
			// event runs emitContext over only that event's handlers.
			return { messages: await handlersOf(event.type).emitContext(event.messages) };
		case "input":
			return await runner.emitInput(event.text, event.images, event.source, event.streamingBehavior);
		case "before_agent_start": {
			if (runner.emitBeforeAgentStart.length <= 2) {
				const trigger =
					event.messageType === "custom"
						? { messageType: "custom", message: event.message }
						: { messageType: "user", prompt: event.prompt, images: event.images };
				// Handlers get pi-go's prompt structure (systemPromptOptions) to edit. Its text travels
				// as forceSystemPrompt, so event.systemPrompt is pi-go's (pi would render it with its
				// <docs> section); an edited structure goes back and pi-go renders it. A handler after
				// one that edited the structure still reads the text from before the edit.
				const given = event.systemPromptOptions;
				const r = await runner.emitBeforeAgentStart(trigger, { ...given, forceSystemPrompt: event.systemPrompt });
				const { forceSystemPrompt: sp, ...options } = r?.systemPromptOptions ?? {};
				const out = { messages: r?.messages ?? [], systemPrompt: sp !== event.systemPrompt ? sp : undefined };
				if (given && changed(promptOptionsKeys(options), promptOptionsKeys(given))) out.systemPromptOptions = options;
				return out;
			}
			// Older packages raise it for prompts only.
			if (event.messageType === "custom") return null;
			const r = await runner.emitBeforeAgentStart(event.prompt, event.images, event.systemPrompt, { customPrompt: event.systemPrompt });
			return { messages: r?.messages ?? [], systemPrompt: r?.systemPrompt !== event.systemPrompt ? r?.systemPrompt : undefined };
		}
		case "user_bash": {
			// A handler's failure is reported by the runner and fails the call: the command must not run.
			const r = await runner.emitUserBash(event);
			if (!r) return null;
			if (r.result) return { result: r.result };
			// Operations are functions: the command runs here, through them, streaming its output.
			const executor = await import(pathToFileURL(path.join(init.options.piPackage, "dist", "core", "bash-executor.js")).href);
			const result = await executor.executeBashWithOperations(event.command, event.cwd, r.operations, {
				onChunk: (output) => write({ type: "tool_update", id, partial: { output } }),
				signal,
			});
			return { result };
		}
		case "turn_end":
		case "agent_before_settle": {
			// pi 1.6's actionable boundaries: handlers see the drafts proposed so far and may replace
			// them. pi-go gives them no preview of the projected context (event.context is empty).
			const { entries = [], continue: proposed = false, ...base } = event;
			if (typeof runner.emitBoundary !== "function") {
				await runner.emit(base);
				return null;
			}
			const context = { contextEntries: [], contextMessages: [], llmMessages: [], pendingMessages: [], canContinue: true };
			let first = true;
			const r = await runner.emitBoundary(base, async (drafts) => {
				// The chain across pi-go's processes starts from what earlier processes proposed.
				if (first) {
					first = false;
					drafts.push(...entries);
				}
				return context;
			});
			return { entries: r.entries, continue: r.continue || proposed };
		}
		case "before_provider_request": {
			// Handlers may replace the payload or change it in place: either way it goes back to pi-go.
			const before = JSON.stringify(event.payload);
			const payload = await runner.emitBeforeProviderRequest(event.payload);
			if (payload === undefined || JSON.stringify(payload) === before) return null;
			return { payload };
		}
		case "before_provider_headers": {
			// Handlers change the record in place (null deletes a header); the whole record goes back.
			if (typeof runner.emitBeforeProviderHeaders !== "function") return null;
			const headers = await runner.emitBeforeProviderHeaders({ ...(event.headers ?? {}) });
			return { headers };
		}
		case "resources_discover":
			return await runner.emitResourcesDiscover(event.cwd, event.reason);
		case "project_trust":
			return await projectTrust(event);
		case "session_before_compact":
		case "session_before_tree":
			// Handlers pass the signal to their own summary requests; pi-go's cancel aborts it.
			return (await runner.emit({ ...event, signal })) ?? null;
		default:
			return (await runner.emit(event)) ?? null;
	}
}

// promptOptionsKeys is a BuildSystemPromptOptions with its keys in one order, for comparing.
const promptOptionsKeys = (o) =>
	Object.fromEntries(
		["customPrompt", "selectedTools", "hiddenTools", "toolSnippets", "toolGuidelines", "promptGuidelines", "appendSystemPrompt", "sections", "cwd", "contextFiles", "skills"].map((k) => [k, o[k]]),
	);

// handlersOf is the runner seen with only the handlers of one event: pi's emit functions that run
// several events in a row then run that one alone.
function handlersOf(name) {
	const extensions = runner.extensions.map((ext) => ({
		...ext,
		handlers: new Map([...ext.handlers].filter(([event]) => event === name)),
	}));
	return Object.create(runner, { extensions: { value: extensions } });
}

async function executeTool(msg, signal) {
	const registered = runner.getAllRegisteredTools().find((t) => t.definition.name === msg.name);
	if (!registered) throw new Error(`Tool ${msg.name} not found`);
	const tool = pi.wrapRegisteredTool(registered, runner);
	const onUpdate = (partial) => write({ type: "tool_update", id: msg.id, partial: { content: partial?.content ?? [], details: partial?.details } });
	const r = await tool.execute(msg.toolCallId, msg.args ?? {}, signal, onUpdate);
	return { content: r?.content ?? [], details: r?.details, isError: r?.isError, terminate: r?.terminate };
}

async function completeCommand(msg) {
	const command = runner.getCommand(msg.name);
	if (typeof command?.getArgumentCompletions !== "function") return null;
	const items = await command.getArgumentCompletions(msg.prefix ?? "");
	if (!Array.isArray(items)) return null;
	return items.map((it) => ({ value: String(it.value ?? ""), label: it.label, description: it.description }));
}

async function runCommand(msg) {
	const command = runner.getCommand(msg.name);
	if (!command) throw new Error(`Unknown command: /${msg.name}`);
	await command.handler(msg.commandArgs ?? "", runner.createCommandContext());
	return null;
}

function serve(msg, fn) {
	const controller = new AbortController();
	running.set(msg.id, controller);
	Promise.resolve()
		.then(() => fn(controller.signal))
		.then(
			(result) => write({ type: "result", id: msg.id, result: result ?? null }),
			(err) => write({ type: "result", id: msg.id, error: errorText(err) || "failed" }),
		)
		.finally(() => {
			running.delete(msg.id);
			syncMarkdownTransformers(); // a handler may have registered one
		});
}

async function onLine(line) {
	if (!line.trim()) return;
	const msg = JSON.parse(line);
	switch (msg.type) {
		case "init":
			try {
				await start(msg);
			} catch (err) {
				console.error(`pi-go sidecar: cannot load extensions with ${msg.options?.piPackage}: ${err?.stack ?? err}`);
				process.exit(1);
			}
			return;
		case "load":
			// Awaited like init: what comes after it sees the new runner.
			try {
				await loadMore(msg.paths ?? []);
				write({ type: "result", id: msg.id, result: null });
			} catch (err) {
				write({ type: "result", id: msg.id, error: errorText(err) || "failed" });
			}
			return;
		case "session_entries":
			onSessionEntries(msg.session ?? {});
			return;
		case "state":
			state = msg.state ?? {};
			requestRender(); // components showing the session (a custom footer) follow it
			return;
		case "response": {
			const pending = pendingRequests.get(msg.id);
			if (!pending) return;
			pendingRequests.delete(msg.id);
			if (msg.error) pending.reject(new Error(msg.error));
			else pending.resolve(msg.result);
			return;
		}
		case "event":
			if (msg.id === undefined) {
				notifyChain = notifyChain
					.then(() => runner.emit(msg.event))
					.catch((err) => write({ type: "error", event: msg.event?.type, error: errorText(err) }))
					.finally(syncMarkdownTransformers);
				return;
			}
			{
				// An event that is answered runs after the notifications sent before it, as pi runs a
				// session's events one after another: a turn_end handler sees what its message_end
				// handler kept (debug-provider's entry), however long the notifications' handlers take.
				const before = notifyChain;
				serve(msg, async (signal) => {
					await before.catch(() => {});
					return answerEvent(msg.event, signal, msg.id);
				});
			}
			return;
		case "execute_tool":
			serve(msg, (signal) => executeTool(msg, signal));
			return;
		case "run_command":
			serve(msg, () => runCommand(msg));
			return;
		case "complete_command":
			serve(msg, () => completeCommand(msg));
			return;
		case "stream_provider":
			serve(msg, (signal) => streamProvider(msg, signal));
			return;
		case "provider_login":
			serve(msg, (signal) => providerLogin(msg, signal));
			return;
		case "provider_refresh":
			serve(msg, (signal) => providerRefresh(msg, signal));
			return;
		case "provider_auth":
			serve(msg, (signal) => providerAuth(msg, signal));
			return;
		case "route_model":
			serve(msg, (signal) => routeVirtualModel(msg, signal, runner?.modelRegistry));
			return;
		case "cancel":
			running.get(msg.id)?.abort();
			return;
		case "reload":
			// In line: what comes after it is for the new extensions.
			try {
				write({ type: "result", id: msg.id, result: await reload(msg) });
			} catch (err) {
				write({ type: "result", id: msg.id, error: errorText(err) || "reload failed" });
			}
			return;
		case "ui_resize":
			onResize(msg);
			return;
		case "ui_input":
			onInput(msg);
			return;
		case "ui_editor":
			editorText = msg.text ?? "";
			syncEditorComponent(editorText);
			return;
		case "run_shortcut":
			serve(msg, () => runShortcut(msg));
			return;
		case "render_message":
			serve(msg, () => renderMessage(msg));
			return;
		case "render_tool":
			serve(msg, () => renderTool(msg));
			return;
		case "render_entry":
			serve(msg, () => renderEntry(msg));
			return;
		case "transform_markdown":
			// Synchronous, as pi's transformers are: answered before the next line is read.
			try {
				write({ type: "result", id: msg.id, result: transformMarkdown(msg) });
			} catch (err) {
				write({ type: "result", id: msg.id, error: errorText(err) || "failed" });
			}
			return;
		case "terminal_input":
			serve(msg, () => terminalInput(msg));
			return;
		case "complete_editor":
			serve(msg, (signal) => completeEditor(msg, signal));
			return;
		case "shutdown":
			try {
				await runner?.emit({ type: "session_shutdown", reason: "quit" });
			} finally {
				process.exit(0);
			}
	}
}

// Lines are handled in order; init finishes before anything after it is read.
let chain = Promise.resolve();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
	chain = chain.then(() => onLine(line)).catch((err) => console.error(`pi-go sidecar: ${err?.stack ?? err}`));
});
process.stdin.on("end", () => chain.then(() => process.exit(0)));
