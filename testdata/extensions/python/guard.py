#!/usr/bin/env python3
"""A pi-go extension in Python (standard library only), speaking docs/extension-protocol.md.

It registers the tool `reverse` (which streams a partial result before its answer), blocks `write`
calls whose path ends in `.env`, and adds the command /py-confirm, which asks the user to confirm and
reports the answer.
"""
import json
import sys
import threading

lock = threading.Lock()
pending = {}  # our requests to pi-go, by id: an Event and the slot for the answer
next_id = 0


def send(msg):
    with lock:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()


def ask(method, params):
    """Sends a request and waits for pi-go's response (the main loop delivers it)."""
    global next_id
    with lock:
        next_id += 1
        rid = "py%d" % next_id
        done = threading.Event()
        pending[rid] = [done, None]
    send({"type": "request", "id": rid, "method": method, "params": params})
    done.wait()
    return pending.pop(rid)[1]


def run_command(msg):
    answer = ask("ui", {"method": "confirm", "title": "Python asks", "message": "Proceed with %s?" % msg.get("commandArgs", "")})
    confirmed = bool(answer and answer.get("confirmed"))
    send({"type": "request", "method": "ui", "params": {"method": "notify", "message": "py-confirm: %s" % ("yes" if confirmed else "no")}})
    send({"type": "result", "id": msg["id"], "result": None})


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "init":
            send({
                "type": "register", "protocol": 1, "name": "python-guard",
                "events": ["tool_call"],
                "tools": [{
                    "name": "reverse", "label": "Reverse", "description": "Reverses a text.",
                    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                }],
                "commands": [{"name": "py-confirm", "description": "Ask for a confirmation"}],
            })
        elif kind == "event":
            if "id" not in msg:
                continue
            ev = msg["event"]
            result = None
            if ev.get("type") == "tool_call" and ev.get("toolName") == "write" and str(ev.get("input", {}).get("path", "")).endswith(".env"):
                result = {"block": True, "reason": "python-guard: .env files are protected"}
            send({"type": "result", "id": msg["id"], "result": result})
        elif kind == "execute_tool":
            text = msg.get("args", {}).get("text", "")
            send({"type": "tool_update", "id": msg["id"], "partial": {"content": [{"type": "text", "text": "reversing %d characters" % len(text)}]}})
            send({"type": "result", "id": msg["id"], "result": {"content": [{"type": "text", "text": text[::-1]}]}})
        elif kind == "run_command":
            threading.Thread(target=run_command, args=(msg,), daemon=True).start()
        elif kind == "response":
            with lock:
                slot = pending.get(msg["id"])
            if slot:
                slot[1] = msg.get("result")
                slot[0].set()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
