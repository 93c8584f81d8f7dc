// --- providers: pi.registerProvider / unregisterProvider reach pi-go, streamSimple runs here --------
// Part of the sidecar script (appended to sidecar.mjs): it uses its write, tell and init.

const providerConfigs = new Map(); // name → the merged config, its functions included
const virtualModels = new Map(); // "provider/id" → the virtual model's definition, route included

// The config's data, as models.json would hold it: functions and the objects of functions left out.
function providerData(config) {
	const { streamSimple, oauth, images, classifiers, refreshModels, ...data } = config ?? {};
	return JSON.parse(JSON.stringify(data, (_key, value) => (typeof value === "function" ? undefined : value)));
}

// The model registry handed to pi's runner: pi's own (ctx.modelRegistry, and its checks of a
// registration, which throw as in pi), with registerProvider and unregisterProvider also told to
// pi-go, which serves the models.
function providerRegistry(real) {
	const register = (name, config) => {
		if (typeof name !== "string") {
			throw new Error("pi-go supports pi.registerProvider(name, config); a pi-ai Provider object cannot be registered");
		}
		real?.registerProvider?.(name, config);
		const merged = { ...providerConfigs.get(name) };
		for (const [key, value] of Object.entries(config ?? {})) if (value !== undefined) merged[key] = value;
		providerConfigs.set(name, merged);
		tell("registerProvider", {
			name,
			config: providerData(config),
			streamSimple: typeof merged.streamSimple === "function",
			oauth: !!merged.oauth,
		});
	};
	const unregister = (name) => {
		real?.unregisterProvider?.(name);
		if (!providerConfigs.delete(name)) return;
		tell("unregisterProvider", { name });
	};
	// Virtual models: pi's registry checks them (and ctx.modelRegistry.find sees them); pi-go lists
	// them and asks route_model for each of their requests.
	const registerVirtual = (definition) => {
		real?.registerVirtualModel?.(definition);
		virtualModels.set(`${definition.provider}/${definition.id}`, definition);
		const { route, ...data } = definition;
		tell("registerVirtualModel", providerData(data));
	};
	const unregisterVirtual = (provider, id) => {
		real?.unregisterVirtualModel?.(provider, id);
		if (!virtualModels.delete(`${provider}/${id}`)) return;
		tell("unregisterVirtualModel", { provider, id });
	};
	return new Proxy(real ?? {}, {
		get(target, key) {
			if (key === "registerProvider") return register;
			if (key === "unregisterProvider") return unregister;
			if (key === "registerVirtualModel") return registerVirtual;
			if (key === "unregisterVirtualModel") return unregisterVirtual;
			const value = target[key];
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}

// pi-ai of the pi package: pi 1.6's streams take a normalized transcript (normalizeContext), older
// ones the context as it is.
let piAI;
async function loadPiAI() {
	if (piAI !== undefined) return piAI;
	piAI = null;
	const pkg = init.options.piPackage;
	const scope = path.basename(path.dirname(pkg));
	for (const dir of [path.join(pkg, "node_modules", scope, "pi-ai"), path.join(path.dirname(pkg), "pi-ai")]) {
		try {
			const meta = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
			const entry = meta.exports?.["."]?.import ?? meta.main ?? "dist/index.js";
			piAI = await import(pathToFileURL(path.join(dir, entry)).href);
			break;
		} catch {
			// not there: the next place
		}
	}
	return piAI;
}

// An event as pi-go takes it: without the partial message it carries (the whole answer so far on
// every delta), a *_start with the block it opens. The block is read when the event is forwarded,
// which may be after later deltas changed it: its text comes only as deltas, so it is left out.
function streamUpdate(event) {
	const out = { type: event.type };
	if (event.contentIndex !== undefined) out.contentIndex = event.contentIndex;
	if (event.delta !== undefined) out.delta = event.delta;
	if (event.type.endsWith("_start") && event.type !== "start") {
		const block = event.partial?.content?.[event.contentIndex];
		if (block) out.block = { type: block.type, id: block.id, name: block.name };
	}
	if (event.type === "toolcall_end") out.toolCall = event.toolCall;
	return out;
}

// Runs a registered provider's streamSimple for one request of pi-go, forwarding its events; the
// result is the final assistant message.
async function streamProvider(msg, signal) {
	const config = providerConfigs.get(msg.name);
	if (typeof config?.streamSimple !== "function") throw new Error(`Provider ${msg.name} has no streamSimple function`);
	const ai = await loadPiAI();
	const context = typeof ai?.normalizeContext === "function" ? ai.normalizeContext(msg.context) : msg.context;
	const stream = await config.streamSimple(msg.model, context, { ...msg.options, signal });
	let final;
	for await (const event of stream) {
		if (event.type === "done") final = event.message;
		else if (event.type === "error") final = event.error;
		else write({ type: "stream_update", id: msg.id, partial: streamUpdate(event) });
	}
	if (!final && typeof stream.result === "function") final = await stream.result();
	if (!final) throw new Error(`Provider ${msg.name}: the stream ended without a message`);
	return final;
}

// Runs a virtual model's route() for one request of pi-go (route_model): msg.model is the selected
// virtual model, msg.context the request. The answer names the physical model and level.
async function routeVirtualModel(msg, signal, registry) {
	const virtual = msg.model ?? {};
	const definition = virtualModels.get(`${virtual.provider}/${virtual.id}`);
	if (!definition) throw new Error(`Virtual model ${virtual.provider}/${virtual.id} is not registered`);
	const request = msg.context ?? {};
	const find = (provider, id) => registry?.find?.(provider, id) ?? { provider, id };
	const previous = request.previous
		? { model: find(request.previous.provider, request.previous.id), thinkingLevel: request.previous.thinkingLevel }
		: undefined;
	const failed = request.failed
		? { model: find(request.failed.provider, request.failed.id), thinkingLevel: request.failed.thinkingLevel, message: request.failed.message }
		: undefined;
	const direct = request.reason === "direct";
	const state = direct ? undefined : (request.state ?? undefined);
	const route = await definition.route({
		model: find(virtual.provider, virtual.id),
		thinkingLevel: request.thinkingLevel ?? "off",
		reason: request.reason ?? "user",
		previous,
		failed,
		state,
		messages: request.messages ?? [],
		signal,
	});
	const model = route?.model;
	if (!model?.provider || !model?.id) throw new Error(`Virtual model ${virtual.provider}/${virtual.id}: route() returned no model`);
	if (model.api === "pi-virtual" || virtualModels.has(`${model.provider}/${model.id}`)) {
		throw new Error(`Virtual model ${virtual.provider}/${virtual.id} cannot route to virtual model ${model.provider}/${model.id}`);
	}
	const answer = { provider: model.provider, id: model.id, thinkingLevel: route.thinkingLevel ?? "off" };
	// undefined or request.state itself keeps the state; any other value is stored, even an equal one.
	if (!direct && route.state !== undefined && route.state !== state) answer.state = JSON.parse(JSON.stringify(route.state));
	return answer;
}
