#!/usr/bin/env python3
"""Write one Claude Code session of a given kind, as benches/scan_kinds.sh
measures the scan on each kind (issue 50's table):

    kinds.py KIND OUT.jsonl [TURNS]

KIND is one of:
  plain        chat and edits: prompts, narration, Edit and Bash tool uses
               with small results;
  progress     heavy in `progress` records (about 40% of the bytes) and
               large tool results (about 40%);
  subagent     a subagent's file of the plain shape: every line
               `isSidechain`, with `agentId`;
  screenshots  a session whose prompts paste screenshots: two user lines
               hold almost all the bytes, as base64 images.

The records are shaped as Claude Code 2.1.197 writes them (the keys and
their order); the text is synthetic. Deterministic: the same arguments
write the same bytes.
"""

import base64
import json
import random
import sys

SID = "bench-0000-4000-8000-000000000000"


class Session:
    def __init__(self, sidechain=False, agent=None):
        self.n = 0
        self.sidechain = sidechain
        self.agent = agent
        self.lines = []
        self.rnd = random.Random(7)

    def common(self, kind, **extra):
        self.n += 1
        rec = {
            "parentUuid": None if self.n == 1 else f"u-{self.n - 1:06d}",
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": "/home/dev/proj",
            "sessionId": SID,
            "version": "2.1.197",
            "gitBranch": "main",
        }
        if self.agent:
            rec["agentId"] = self.agent
        rec.update(extra)
        rec["type"] = kind
        rec["uuid"] = f"u-{self.n:06d}"
        rec["timestamp"] = f"2026-11-20T10:{(self.n // 60) % 60:02d}:{self.n % 60:02d}.000Z"
        return rec

    def add(self, rec):
        self.lines.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))

    def words(self, n):
        """n words of code-like text: lines of about a dozen words, some
        quoted, some with a path's backslash, as tool output and source
        hold them (JSON escapes are much of a real line's parsing)."""
        pool = ["the", "cache", "writer", "lock", "file", "test", "parser", "error",
                "returns", "when", "empty", "input", "config", "value", "handler",
                "request", "timeout", "retry", "path", "build", '"name"', "\\tmp",
                "fn", "{", "}", "=>", "let", "x:", "é"]
        out = []
        for i in range(n):
            out.append(self.rnd.choice(pool))
            out.append("\n" if i % 12 == 11 else " ")
        return "".join(out)

    def user(self, content):
        self.add(self.common("user", message={"role": "user", "content": content}))

    def assistant(self, mid, block):
        msg = {"model": "claude-sonnet-4-5", "id": mid, "type": "message",
               "role": "assistant", "content": [block], "stop_reason": None,
               "stop_sequence": None,
               "usage": {"input_tokens": 12, "cache_read_input_tokens": 20480,
                         "output_tokens": 240, "service_tier": "standard"}}
        rec = self.common("assistant", message=msg, requestId=f"req_{mid}")
        for key in ("type", "uuid", "timestamp"):
            rec[key] = rec.pop(key)
        self.add(rec)

    def text(self, mid, n):
        self.assistant(mid, {"type": "text", "text": self.words(n)})

    def tool_use(self, mid, tid, name, inp):
        self.assistant(mid, {"type": "tool_use", "id": tid, "name": name, "input": inp})

    def result(self, tid, output):
        self.add(self.common(
            "user",
            message={"role": "user", "content": [
                {"tool_use_id": tid, "type": "tool_result", "content": output,
                 "is_error": False}]},
            toolUseResult={"stdout": output, "stderr": "", "interrupted": False,
                           "isImage": False}))

    def progress(self, tid, n):
        self.add(self.common(
            "progress",
            data={"type": "bash_progress", "output": self.words(n),
                  "fullOutput": self.words(n), "elapsedTimeSeconds": 3,
                  "totalLines": 40},
            toolUseID=f"bash-progress-{self.n}", parentToolUseID=tid))


def turn(s, t, kind):
    s.user(f"Fix the {s.words(3)} in src/mod{t}.rs and run the tests.")
    s.text(f"m{t}a", 30)
    s.tool_use(f"m{t}b", f"t{t}r", "Read", {"file_path": f"/home/dev/proj/src/mod{t}.rs"})
    # A file read, and an edit, of the sizes real sessions hold (a turn of
    # a real session is tens of KB: the gates judge per turn).
    s.result(f"t{t}r", s.words(4000))
    s.tool_use(f"m{t}c", f"t{t}e", "Edit", {
        "file_path": f"/home/dev/proj/src/mod{t}.rs",
        "old_string": s.words(400), "new_string": s.words(450)})
    s.result(f"t{t}e", "The file has been updated.")
    s.tool_use(f"m{t}d", f"t{t}b", "Bash", {"command": "cargo test 2>&1 | tail -20",
                                             "description": "Run the tests"})
    if kind == "progress":
        for _ in range(30):
            s.progress(f"t{t}b", 120)
        s.result(f"t{t}b", s.words(5000))
    else:
        s.result(f"t{t}b", "test result: ok. 42 passed; 0 failed")
    s.text(f"m{t}e", 60)


def screenshots(s, turns):
    png = base64.b64encode(random.Random(3).randbytes(1_500_000)).decode()
    for t in range(turns):
        if t in (1, turns // 2):
            s.user([{"type": "text", "text": "This is what the page shows now:"},
                    {"type": "image", "source": {"type": "base64",
                                                 "media_type": "image/png",
                                                 "data": png}}])
            s.text(f"m{t}a", 40)
            s.tool_use(f"m{t}c", f"t{t}e", "Edit", {
                "file_path": "/home/dev/proj/src/page.tsx",
                "old_string": s.words(20), "new_string": s.words(25)})
            s.result(f"t{t}e", "The file has been updated.")
            s.text(f"m{t}e", 50)
        else:
            turn(s, t, "plain")


def main():
    kind, out = sys.argv[1], sys.argv[2]
    turns = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    if kind == "subagent":
        s = Session(sidechain=True, agent="a1b2c3d4")
    else:
        s = Session()
    if kind == "screenshots":
        screenshots(s, turns)
    elif kind in ("plain", "progress", "subagent"):
        for t in range(turns):
            turn(s, t, kind)
    else:
        sys.exit(f"kinds.py: no kind {kind!r}")
    with open(out, "w") as f:
        f.write("\n".join(s.lines) + "\n")


if __name__ == "__main__":
    main()
