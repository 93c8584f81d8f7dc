#!/usr/bin/env python3
"""A pi-go extension in Python (standard library only) that takes part in session operations,
speaking version 2 of docs/extension-protocol.md.

- user_bash: `!remote <cmd>` is answered by the extension itself, its output streamed first;
- session_before_compact: cancels a compaction asked for with the instructions "py-cancel", supplies its
  own summary for the others; session_compact, session_compact_failed and model_select: notifies;
- before_provider_request: sets the payload's "user" to "py-hooked"; after_provider_response: notifies
  the status;
- resources_discover: contributes the skills of the directory py-skills (relative to the project);
- /py-tools <names>: setActiveTools; /py-note <text>: sendMessage with triggerTurn (starts a run), whose
  before_agent_start (messageType "custom") adds a context message.
"""
import json
import sys
import threading

lock = threading.Lock()


def send(msg):
    with lock:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()


def tell(method, params):
    send({"type": "request", "method": method, "params": params})


def notify(text):
    tell("ui", {"method": "notify", "message": text, "notifyType": "info"})


def answer_event(msg):
    ev = msg["event"]
    kind = ev.get("type")
    if kind == "user_bash" and ev.get("command", "").startswith("remote "):
        output = "remote: %s\n" % ev["command"][len("remote "):]
        send({"type": "tool_update", "id": msg["id"], "partial": {"output": output}})
        return {"result": {"output": output, "exitCode": 0, "cancelled": False, "truncated": False}}
    if kind == "before_agent_start" and ev.get("messageType") == "custom":
        return {"message": {"customType": "py-context", "content": "context for %s" % ev["message"]["customType"], "display": False}}
    if kind == "before_provider_request":
        payload = ev["payload"]
        payload["user"] = "py-hooked"
        return {"payload": payload}
    if kind == "resources_discover":
        return {"skillPaths": ["py-skills"]}
    if kind == "session_before_compact":
        if ev.get("customInstructions") == "py-cancel":
            return {"cancel": True}
        prep = ev["preparation"]
        return {"compaction": {
            "summary": "python summary of %d messages" % len(prep["messagesToSummarize"]),
            "firstKeptEntryId": prep["firstKeptEntryId"],
            "tokensBefore": prep["tokensBefore"],
        }}
    return None


def observe(ev):
    kind = ev.get("type")
    if kind == "model_select":
        notify("py model: %s/%s (%s)" % (ev["model"]["provider"], ev["model"]["id"], ev["source"]))
    elif kind == "session_compact":
        notify("py compacted fromExtension=%s" % json.dumps(ev["fromExtension"]))
    elif kind == "session_compact_failed":
        notify("py compact failed reason=%s aborted=%s fromExtension=%s errorMessage=%s" % (
            ev["reason"], json.dumps(ev["aborted"]), json.dumps(ev["fromExtension"]), ev.get("errorMessage", "")))
    elif kind == "after_provider_response":
        notify("py response %d %s" % (ev["status"], ev["headers"].get("content-type", "")))


def run_command(msg):
    args = msg.get("commandArgs", "")
    if msg["name"] == "py-tools":
        tell("setActiveTools", {"names": args.split()})
    elif msg["name"] == "py-note":
        tell("sendMessage", {"message": {"customType": "py-note", "content": args, "display": True},
                             "options": {"triggerTurn": True}})
    send({"type": "result", "id": msg["id"], "result": None})


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "init":
            send({
                "type": "register", "protocol": 2, "name": "python-session",
                "events": ["user_bash", "session_before_compact", "session_compact", "model_select", "before_agent_start",
                           "before_provider_request", "after_provider_response", "session_compact_failed",
                           "resources_discover"],
                "commands": [{"name": "py-tools", "description": "Set the active tools"},
                             {"name": "py-note", "description": "Send a note that starts a turn"}],
            })
        elif kind == "event":
            if "id" in msg:
                send({"type": "result", "id": msg["id"], "result": answer_event(msg)})
            else:
                observe(msg["event"])
        elif kind == "run_command":
            run_command(msg)
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
