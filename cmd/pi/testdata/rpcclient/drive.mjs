// Drives an agent through pi 1.6.0's own RpcClient (dist/modes/rpc/rpc-client.js) and prints what the
// client's calls returned and which events it saw, as one JSON document. The Go test runs it against
// pi 1.6.0 and against pi-go and compares the two.
//
// Arguments (environment): RPC_CLIENT_JS the rpc-client.js to import, CLI_PATH the script RpcClient
// runs with `node`, WORKDIR the project directory, CONTROL_URL the scripted server's control address
// (GET /release/<n> lets held answer n go on).
import { pathToFileURL } from "node:url";

const { RpcClient } = await import(pathToFileURL(process.env.RPC_CLIENT_JS).href);
const control = process.env.CONTROL_URL;
const release = async (n) => {
	const res = await fetch(`${control}/release/${n}`);
	if (!res.ok) throw new Error(`release ${n}: ${res.status}`);
};

const client = new RpcClient({
	cliPath: process.env.CLI_PATH,
	cwd: process.env.WORKDIR,
	model: "mock/mock-model",
	env: {},
});
const events = [];
client.onEvent((e) => events.push(e));
// nextEvent resolves with the first event from now on that matches.
const nextEvent = (match) =>
	new Promise((resolve) => {
		const off = client.onEvent((e) => {
			if (match(e)) {
				off();
				resolve(e);
			}
		});
	});
const isDelta = (e) => e.type === "message_update" && e.assistantMessageEvent?.type === "text_delta";

const out = {};
await client.start();
try {
	out.initialState = await client.getState();

	// A prompt whose answer is held: a steer and a follow-up while it streams.
	let streaming = nextEvent(isDelta);
	let idle = client.waitForIdle();
	out.promptDisposition = await client.prompt("hello");
	await streaming;
	out.steerDisposition = await client.steer("steered");
	out.followUpDisposition = await client.followUp("followed");
	out.queuedState = await client.getState();
	await release(1);
	await idle;
	out.stateAfterRun = await client.getState();
	out.messagesAfterRun = await client.getMessages();

	// A prompt aborted while its answer streams.
	streaming = nextEvent(isDelta);
	idle = client.waitForIdle();
	out.abortedPromptDisposition = await client.prompt("write a long essay");
	await streaming;
	await client.abort();
	await idle;
	out.stateAfterAbort = await client.getState();

	out.bash = await client.bash("echo from bash");
	out.lastAssistantText = await client.getLastAssistantText();
	out.compact = await client.compact();
	out.stateAfterCompact = await client.getState();
	out.messagesAfterCompact = await client.getMessages();
} finally {
	await client.stop();
}
out.events = events;
out.stderr = client.getStderr();
process.stdout.write(JSON.stringify(out) + "\n");
