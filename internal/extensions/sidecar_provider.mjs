// --- providers: pi.registerProvider / unregisterProvider reach pi-go, streamSimple runs here --------
// Part of the sidecar script (appended to sidecar.mjs): it uses its write, tell and init.

const providerConfigs = new Map(); // name → the merged config, its functions included
const nativeProviders = new Map(); // id → a registered pi-ai Provider object
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
		if (name !== null && typeof name === "object") return registerNative(real, name);
		real?.registerProvider?.(name, config);
		nativeProviders.delete(name);
		const merged = { ...providerConfigs.get(name) };
		for (const [key, value] of Object.entries(config ?? {})) if (value !== undefined) merged[key] = value;
		providerConfigs.set(name, merged);
		tell("registerProvider", {
			name,
			config: providerData(config),
			streamSimple: typeof merged.streamSimple === "function",
			oauth: merged.oauth ? { name: merged.oauth.name ?? merged.name ?? name } : false,
		});
	};
	const unregister = (name) => {
		real?.unregisterProvider?.(name);
		if (!providerConfigs.delete(name) && !nativeProviders.delete(name)) return;
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
	const native = nativeProviders.get(msg.name);
	const streamSimple = native ? native.streamSimple?.bind(native) : providerConfigs.get(msg.name)?.streamSimple;
	if (typeof streamSimple !== "function") throw new Error(`Provider ${msg.name} has no streamSimple function`);
	const ai = await loadPiAI();
	const context = typeof ai?.normalizeContext === "function" ? ai.normalizeContext(msg.context) : msg.context;
	const stream = await streamSimple(msg.model, context, { ...msg.options, signal });
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

// --- native providers and logins ------------------------------------------------------------------

// A pi-ai Provider object (pi.registerProvider(provider)): pi-go lists its chat models and streams
// all of them through its streamSimple; its auth answers provider_auth and provider_login.
function registerNative(real, provider) {
	if (typeof provider.id !== "string" || !provider.id) throw new Error("pi.registerProvider(provider): the provider has no id");
	real?.registerProvider?.(provider);
	providerConfigs.delete(provider.id);
	nativeProviders.set(provider.id, provider);
	const models = (provider.getModels?.() ?? []).map((model) => ({ ...model, baseUrl: model.baseUrl ?? provider.baseUrl }));
	const oauth = provider.auth?.oauth;
	tell("registerProvider", {
		name: provider.id,
		config: providerData({ name: provider.name, baseUrl: provider.baseUrl, models }),
		native: true,
		oauth: oauth ? { name: oauth.name ?? provider.name ?? provider.id } : false,
		// Whether a key resolves without a stored credential is only known by asking (async);
		// pi-go counts a provider with API-key auth as configured and lets the request tell.
		apiKeyConfigured: !!provider.auth?.apiKey,
	});
}

// The auth of a registered provider in pi-ai's native shape; a legacy config's oauth is adapted as
// pi's provider composer adapts it.
function providerAuthOf(name) {
	const native = nativeProviders.get(name);
	if (native) return native.auth ?? {};
	const oauth = providerConfigs.get(name)?.oauth;
	if (!oauth) return {};
	return {
		oauth: {
			name: oauth.name,
			login: async (interaction) => ({
				...(await oauth.login({
					onAuth: (info) => interaction.notify({ type: "auth_url", ...info }),
					onDeviceCode: (info) => interaction.notify({ type: "device_code", ...info }),
					onPrompt: (prompt) => interaction.prompt({ type: "text", ...prompt }),
					onProgress: (message) => interaction.notify({ type: "progress", message }),
					onManualCodeInput: () => interaction.prompt({ type: "manual_code", message: "Paste the authorization code" }),
					onSelect: (prompt) => interaction.prompt({ type: "select", ...prompt }),
					signal: interaction.signal,
				})),
				type: "oauth",
			}),
			refresh: async (credential, signal) => ({ ...(await oauth.refreshToken(credential, signal)), type: "oauth" }),
			toAuth: async (credential) => ({ apiKey: await oauth.getApiKey(credential) }),
		},
	};
}

// A request to pi-go that gives up when signal aborts (the login was cancelled).
function requestUntil(method, params, signal) {
	if (signal.aborted) return Promise.reject(new Error("Login cancelled"));
	return new Promise((resolve, reject) => {
		const onAbort = () => reject(new Error("Login cancelled"));
		signal.addEventListener("abort", onAbort, { once: true });
		request(method, params).then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
	});
}

// JSON without functions (an AuthEvent or AuthPrompt as pi-go reads it).
const plain = (value) => JSON.parse(JSON.stringify(value ?? {}, (_key, v) => (typeof v === "function" ? undefined : v)));

// provider_login: the provider's OAuth login, its callbacks answered by pi-go's UI; the result is
// the credential pi-go stores in auth.json.
async function providerLogin(msg, signal) {
	const oauth = providerAuthOf(msg.name).oauth;
	if (!oauth) throw new Error(`Provider ${msg.name} has no OAuth login`);
	const interaction = {
		signal,
		notify: (event) => {
			if (!signal.aborted) tell("login", { loginId: msg.loginId, notify: plain(event) });
		},
		prompt: async (prompt) => {
			const { signal: _own, ...question } = prompt ?? {};
			const answer = await requestUntil("login", { loginId: msg.loginId, prompt: plain(question) }, signal);
			return answer?.value ?? "";
		},
	};
	const credential = await oauth.login(interaction, { agentName: "pi" });
	if (!credential || typeof credential !== "object") throw new Error(`The login of ${msg.name} returned no credential`);
	return { ...credential, type: "oauth" };
}

// provider_refresh: a fresh OAuth credential for an expired one.
async function providerRefresh(msg, signal) {
	const oauth = providerAuthOf(msg.name).oauth;
	if (!oauth) throw new Error(`Provider ${msg.name} has no OAuth login`);
	return { ...(await oauth.refresh(msg.credential, signal)), type: "oauth" };
}

// The environment a native provider's key resolution reads (pi's AuthContext).
const authContext = {
	env: async (name) => process.env[name],
	fileExists: async (file) => fs.existsSync(file),
};

// provider_auth: what a request sends ({apiKey, headers}) for a stored credential, or null.
async function providerAuth(msg, signal) {
	const auth = providerAuthOf(msg.name);
	const credential = msg.credential ?? undefined;
	let modelAuth;
	if (credential?.type === "oauth") {
		if (!auth.oauth) throw new Error(`Provider ${msg.name} has no OAuth login`);
		modelAuth = await auth.oauth.toAuth(credential);
	} else if (auth.apiKey) {
		modelAuth = (await auth.apiKey.resolve({ ctx: authContext, credential, signal }))?.auth;
	}
	if (!modelAuth) return null;
	return { apiKey: modelAuth.apiKey, headers: modelAuth.headers };
}
