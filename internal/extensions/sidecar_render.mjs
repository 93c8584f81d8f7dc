// --- tool and entry renderers in pi-go's terminal ---------------------------------------------------
// Appended to sidecar.mjs after sidecar_ui.mjs (one script). A tool call whose drawing an extension
// chose (renderCall / renderResult of a registered tool, or a registerToolRenderer resolver) is drawn
// here by pi's own ToolExecutionComponent, kept per tool call so renderers keep their state and last
// component as in pi; pi-go asks again at each change (arguments, partial and final results, width)
// and gets the collapsed and the expanded drawing at once, so Ctrl+O needs no round trip.

const toolRows = new Map(); // toolCallId → { component, args, started, complete, result }
const MAX_TOOL_ROWS = 500; // pi-go asks again for an older call only after a resize: it starts afresh
let builtInRenderersLoad;

function builtInRenderers() {
	builtInRenderersLoad ??= import(pathToFileURL(path.join(init.options.piPackage, "dist", "core", "tools", "renderers", "index.js")).href).catch(
		() => null,
	);
	return builtInRenderersLoad;
}

/** Whether some extension may choose how tools are drawn (for register). */
function toolRendererRegistrations() {
	const names = new Set();
	let resolvers = false;
	for (const ext of runner.extensions ?? []) {
		if (ext.toolRenderers?.length) resolvers = true;
		for (const [name, tool] of ext.tools ?? []) {
			const d = tool.definition ?? tool;
			if (d.renderCall || d.renderResult) names.add(name);
		}
	}
	return { toolRenderers: [...names], toolRendererResolvers: resolvers };
}

/**
 * The renderers pi would draw toolName's calls with, or undefined when no extension had a say (pi-go
 * then draws the call as its own). As pi: resolvers in load order, then the registered tool with the
 * built-in renderers filling what it leaves out.
 */
async function resolveToolRenderers(toolName) {
	const builtIns = await builtInRenderers();
	const registered = runner.getAllRegisteredTools().find((t) => t.definition.name === toolName)?.definition;
	const own = !!(registered?.renderCall || registered?.renderResult);
	const base = builtIns?.withBuiltInRenderers ? builtIns.withBuiltInRenderers(toolName, registered) : registered;
	const resolved = typeof runner.resolveToolRenderers === "function" ? runner.resolveToolRenderers(toolName, () => base) : base;
	if (!resolved || (!resolved.renderCall && !resolved.renderResult)) return undefined;
	if (resolved === base && !own) return undefined;
	return resolved;
}

const sameJSON = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** render_tool: the lines of a tool call's block, collapsed and expanded, or null for pi-go's own. */
async function renderTool(msg) {
	let row = toolRows.get(msg.toolCallId);
	const args = msg.args ?? {};
	if (!row) {
		// Resolved once per call, as pi resolves when it creates the call's component: a resolver that
		// returns a new object each time keeps its state and last components.
		const definition = await resolveToolRenderers(msg.toolName);
		if (!definition) return null;
		const component = new pi.ToolExecutionComponent(
			msg.toolName,
			msg.toolCallId,
			args,
			{ showImages: false, outputPad: 1 }, // pi-go draws a result's images under the block
			definition,
			tuiHost,
			init.cwd,
		);
		row = { component, args, started: false, complete: false, result: undefined };
		toolRows.set(msg.toolCallId, row);
		if (toolRows.size > MAX_TOOL_ROWS) toolRows.delete(toolRows.keys().next().value);
	}
	const c = row.component;
	if (!sameJSON(row.args, args)) {
		row.args = args;
		c.updateArgs(args);
	}
	if (msg.argsComplete && !row.complete) {
		row.complete = true;
		c.setArgsComplete();
	}
	if (msg.executionStarted && !row.started) {
		row.started = true;
		c.markExecutionStarted();
	}
	if (msg.result) {
		const result = { content: msg.result.content ?? [], details: msg.result.details, isError: !!msg.isError, durationMs: msg.durationMs };
		if (!sameJSON(row.result, { result, partial: !!msg.isPartial })) {
			row.result = { result, partial: !!msg.isPartial };
			c.updateResult(result, !!msg.isPartial);
		}
	}
	const draw = (expanded) => {
		c.setExpanded(expanded);
		return (c.render(msg.width) ?? []).map(terminalLine);
	};
	const lines = draw(false);
	const expandedLines = draw(true);
	return { lines, expandedLines };
}

/** render_entry: a custom session entry drawn by its extension's registerEntryRenderer, as pi's
 * CustomEntryComponent draws it (a blank line, then the renderer's component); null when there is
 * no renderer or it draws nothing. */
function renderEntry(msg) {
	const renderer = runner.getEntryRenderer?.(msg.entry?.customType);
	if (!renderer) return null;
	const draw = (expanded) => {
		let component;
		try {
			component = renderer(msg.entry, { expanded, keyText: pi.keyText ?? (() => ""), keyHint: pi.keyHint ?? ((_k, d) => d) }, themeProxy);
		} catch (err) {
			// pi shows the failure in the entry's place
			return ["", ` ${themeProxy.fg("error", `[${msg.entry.customType}] renderer failed: ${errorText(err)}`)}`];
		}
		if (!component) return [];
		return ["", ...(component.render(msg.width) ?? []).map(terminalLine)];
	};
	const lines = draw(false);
	const expandedLines = draw(true);
	if (lines.length === 0 && expandedLines.length === 0) return null;
	return { lines, expandedLines };
}

// --- markdown transformers (pi 1.6's registerMarkdownTransformer) ----------------------------------
// pi-go asks with transform_markdown for one surface's text; pi's runner gives the transformers in
// load order, each already limited to its messageTypes. As pi's applyMarkdownTransformers: a
// transformer that throws or returns no string keeps the markdown so far and the chain goes on.

let markdownSent = "null"; // the registration pi-go knows, as JSON

/** The union of the extensions' transformer surfaces, or undefined when none registered one. */
function markdownTransformerRegistration() {
	const types = new Set();
	let any = false;
	for (const ext of runner.extensions ?? []) {
		if (!ext.markdownTransformer) continue;
		any = true;
		for (const t of ext.markdownTransformer.messageTypes ?? []) types.add(t);
	}
	if (!any || types.size === 0) return undefined;
	return { messageTypes: [...types].sort() };
}

/** Tells pi-go when a transformer was registered, replaced or dropped after register. */
function syncMarkdownTransformers() {
	if (!runner) return;
	const reg = markdownTransformerRegistration();
	const key = JSON.stringify(reg ?? null);
	if (key === markdownSent) return;
	markdownSent = key;
	tell("markdownTransformer", reg ?? null);
}

/** transform_markdown: the markdown after the chain (synchronous, as pi's). */
function transformMarkdown(msg) {
	const c = msg.context ?? {};
	const context = {
		messageType: c.messageType,
		isStreaming: !!c.isStreaming,
		availableWidth: c.availableWidth,
		messageId: c.messageId || undefined,
		timestamp: c.timestamp || undefined,
	};
	let markdown = msg.markdown ?? "";
	for (const transformer of runner.getMarkdownTransformers?.() ?? []) {
		try {
			const out = transformer(markdown, context);
			if (typeof out === "string") markdown = out;
		} catch {
			// pi keeps the markdown so far and goes on with the next transformer
		}
	}
	return { markdown };
}
