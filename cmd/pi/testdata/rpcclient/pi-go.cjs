// The script RpcClient runs as `node <cliPath> --mode rpc ...` for pi-go: it runs the pi-go binary
// (PI_GO_BIN) on the same stdin and stdout, passes signals on and exits as it does.
const { spawn } = require("node:child_process");
const { constants } = require("node:os");

const child = spawn(process.env.PI_GO_BIN, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGHUP", "SIGINT"]) {
	process.on(sig, () => child.kill(sig));
}
child.on("exit", (code, signal) => {
	process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
