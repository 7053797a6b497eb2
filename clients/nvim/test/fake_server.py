"""A stand-in for `cad-lsp serve` that needs no model: it speaks just enough
LSP over stdio for the editor clients' end-to-end checks.

`cad.editSelection` upper-cases the selected text, sends it back with
workspace/applyEdit (as the real server does) and replies with the outcome.
Standard library only, so it runs wherever Python does.
"""

import json
import sys

docs = {}  # uri -> {"version": int, "text": str}
next_id = 0
encoding = "utf-16"  # LSP's default; replaced by the client's first choice, as pygls does


def read_message():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(message):
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    sys.stdout.buffer.flush()


def offset(text, position):
    """Index into `text` of an LSP position in the negotiated encoding."""
    lines = text.split("\n")
    if position["line"] >= len(lines):
        raise ValueError(f"line {position['line']} is past the end")
    start = sum(len(line) + 1 for line in lines[: position["line"]])
    codec, width = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}[encoding]
    units = lines[position["line"]].encode(codec)
    if position["character"] * width > len(units):
        raise ValueError(f"character {position['character']} is past the end of its line")
    # Strict decoding also rejects a position inside a character.
    return start + len(units[: position["character"] * width].decode(codec))


def request(method, params):
    """Sends a request to the client and returns its result, serving nothing else meanwhile."""
    global next_id
    next_id += 1
    send({"id": next_id, "method": method, "params": params})
    while True:
        message = read_message()
        if message is None:
            sys.exit(1)
        if message.get("id") == next_id and "method" not in message:
            return message.get("result")


def edit_selection(arg):
    doc = docs.get(arg["uri"])
    if doc is None:
        return {"applied": False, "message": "document is not open"}
    if doc["version"] != arg["version"]:
        return {"applied": False, "message": f"version {arg['version']} is stale"}
    if not arg["instruction"].strip():
        return {"applied": False, "message": "empty instruction"}
    start, end = offset(doc["text"], arg["range"]["start"]), offset(doc["text"], arg["range"]["end"])
    edit = {
        "documentChanges": [
            {
                "textDocument": {"uri": arg["uri"], "version": arg["version"]},
                "edits": [{"range": arg["range"], "newText": doc["text"][start:end].upper()}],
            }
        ]
    }
    result = request("workspace/applyEdit", {"label": "cad-lsp", "edit": edit}) or {}
    applied = bool(result.get("applied"))
    return {"applied": applied, "message": "upper-cased" if applied else "client refused the edit"}


def main():
    global encoding
    while True:
        message = read_message()
        if message is None:
            return
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            offered = params["capabilities"].get("general", {}).get("positionEncodings", [])
            encoding = next((e for e in offered if e in ("utf-8", "utf-16", "utf-32")), encoding)
            capabilities = {
                "positionEncoding": encoding,
                "textDocumentSync": 1,  # full text on every change keeps this simple
                "executeCommandProvider": {"commands": ["cad.editSelection"]},
            }
            send({"id": message["id"], "result": {"capabilities": capabilities}})
        elif method == "textDocument/didOpen":
            doc = params["textDocument"]
            docs[doc["uri"]] = {"version": doc["version"], "text": doc["text"]}
        elif method == "textDocument/didChange":
            docs[params["textDocument"]["uri"]] = {
                "version": params["textDocument"]["version"],
                "text": params["contentChanges"][-1]["text"],
            }
        elif method == "workspace/executeCommand":
            try:
                send({"id": message["id"], "result": edit_selection(params["arguments"][0])})
            except (KeyError, IndexError, TypeError, ValueError) as error:
                send({"id": message["id"], "error": {"code": -32602, "message": str(error)}})
        elif method == "shutdown":
            send({"id": message["id"], "result": None})
        elif method == "exit":
            return
        elif "id" in message and method:
            send({"id": message["id"], "error": {"code": -32601, "message": f"no {method}"}})


if __name__ == "__main__":
    main()
