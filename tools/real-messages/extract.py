#!/usr/bin/env python3
"""Extract turns (prompt, tool uses, final message) from real agent transcripts.

Usage:
  extract.py --git-dir DIR [--commit C] PATH [PATH ...]   # read PATH at commit C (default HEAD) of a bare mirror
  extract.py --git-dir DIR [--commit C] --scan             # every *.jsonl / *.json transcript in the tree
  extract.py --file LOCALFILE [--path NAME]                # a local copy (e.g. saved from the code index)

Writes one JSON object per turn to stdout:
  {path, line, kind, prompt, tools, raw_tools, text, changed, ntools}
`line` is the 1-based line of the record that holds the final message (for Gemini JSON chats, the line of
the pretty-printed file where that message's text starts).

Turn = from one real user prompt to the next real user prompt. Tool results, stop-hook feedback, meta/command
records, sidechain (subagent) records and compact summaries are not prompts. A turn is emitted only when its
last assistant output is text (turns cut off by an interruption or ending on a tool call are dropped).
"""
import argparse
import json
import re
import subprocess
import sys

WRITE_TOOLS = {"Write", "NotebookEdit", "write_file", "create_file"}
EDIT_TOOLS = {"Edit", "MultiEdit", "replace", "str_replace", "edit_file", "apply_patch"}
READ_TOOLS = {"Read", "read_file", "read_many_files", "view"}
BASH_TOOLS = {"Bash", "shell", "run_shell_command", "exec_command", "local_shell", "container.exec"}


def clean_cmd(cmd):
    if isinstance(cmd, list):
        if len(cmd) >= 3 and cmd[0] in ("bash", "sh", "zsh", "/bin/bash", "/bin/sh") and cmd[1] in ("-lc", "-c"):
            cmd = cmd[2]
        else:
            cmd = " ".join(str(c) for c in cmd)
    cmd = str(cmd).replace(",", " ").replace("\t", " ").replace("\n", " ").replace("\r", " ")
    cmd = re.sub(r" +", " ", cmd).strip()
    return cmd[:200]


def tool_code(name, inp):
    if name in WRITE_TOOLS:
        return "W"
    if name in EDIT_TOOLS:
        if name == "apply_patch" and isinstance(inp, str) and "*** Add File" in inp and "*** Update File" not in inp:
            return "W"
        return "E"
    if name in READ_TOOLS:
        return "R"
    if name in BASH_TOOLS:
        cmd = ""
        if isinstance(inp, dict):
            cmd = inp.get("command") or inp.get("cmd") or ""
        else:
            cmd = inp
        return "B:" + clean_cmd(cmd)
    return "R"  # search / glob / todo / web / task / mcp: uses that change no file


def git_show(git_dir, commit, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
                          capture_output=True, check=True).stdout.decode("utf-8", "replace")


# ---------------------------------------------------------------- Claude Code JSONL
NOT_PROMPT_PREFIXES = ("<local-command-stdout>", "Caveat:",
                       "<local-command-caveat>", "Stop hook feedback", "<system-reminder>", "<bash-input>",
                       "<bash-stdout>", "<task-notification>", "<user-prompt-submit-hook>")


def claude_user_prompt(rec):
    """Return prompt text if this record is a real user prompt, '' if not a prompt, None if a turn-breaker
    that is not usable (compact summary, interruption)."""
    if rec.get("isSidechain") or rec.get("isMeta"):
        return ""
    msg = rec.get("message") or {}
    content = msg.get("content")
    if rec.get("isCompactSummary") or rec.get("isVisibleInTranscriptOnly"):
        return None
    texts = []
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        if any(isinstance(c, dict) and c.get("type") == "tool_result" for c in content):
            return ""
        texts = [c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text"]
    t = "\n".join(texts).strip()
    if not t:
        return ""
    if t.startswith("[Request interrupted"):
        return None
    if t.startswith("This session is being continued from a previous conversation"):
        return None
    if t.startswith(NOT_PROMPT_PREFIXES):
        return ""
    if t.startswith(("<command-name>", "<command-message>")):
        # a slash command typed by the user: the prompt is "/name args"
        name = re.search(r"<command-name>(.*?)</command-name>", t, re.S)
        args = re.search(r"<command-args>(.*?)</command-args>", t, re.S)
        p = ((name.group(1).strip() if name else "") + " " + (args.group(1).strip() if args else "")).strip()
        return p or ""
    return t


def extract_claude(text, path):
    recs = []
    for i, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except Exception:
            continue
        recs.append((i, rec))
    return extract_claude_records(recs, path)


def extract_claude_records(recs, path):
    turns = []
    cur = None

    def close():
        if cur and cur.get("final") is not None and cur.get("usable"):
            turns.append(cur)

    for i, rec in recs:
        if not isinstance(rec, dict):
            continue
        typ = rec.get("type")
        if typ == "user":
            p = claude_user_prompt(rec)
            if p is None:
                # interruption / compaction: the running turn is cut; do not use it
                if cur:
                    cur["usable"] = False
                close()
                cur = None
                continue
            if p:
                close()
                cur = {"path": path, "kind": "claude", "prompt": p, "tools": [], "raw_tools": [],
                       "final": None, "usable": True, "last_is_text": False}
            continue
        if typ != "assistant" or cur is None or rec.get("isSidechain"):
            continue
        msg = rec.get("message") or {}
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for c in content or []:
            if not isinstance(c, dict):
                continue
            if c.get("type") == "tool_use":
                name = c.get("name", "")
                inp = c.get("input", {})
                cur["tools"].append(tool_code(name, inp))
                cur["raw_tools"].append(name)
                cur["last_is_text"] = False
            elif c.get("type") == "text" and c.get("text", "").strip():
                if c["text"].strip().startswith(("API Error", "Provider API request failed", "Provider request timed out",
                                                 "Provider exception")):
                    cur["usable"] = False  # the turn ended on an error, not on a message
                    continue
                if c["text"].strip() == "No response requested.":
                    continue
                cur["final"] = c["text"]
                cur["line"] = i
                cur["ntools_at_final"] = len(cur["tools"])
                cur["last_is_text"] = True
    close()
    out = []
    for t in turns:
        if not t["last_is_text"] or t["ntools_at_final"] != len(t["tools"]):
            continue
        out.append(t)
    return out


# ---------------------------------------------------------------- Codex CLI rollout
def extract_codex(text, path):
    turns = []
    cur = None
    recs = []
    for i, line in enumerate(text.splitlines(), 1):
        try:
            rec = json.loads(line)
        except Exception:
            continue
        recs.append((i, rec))
    has_event_user = any(r.get("type") == "event_msg" and (r.get("payload") or {}).get("type") == "user_message"
                         for _, r in recs)

    def close():
        if cur and cur.get("final") is not None and cur["last_is_text"]:
            turns.append(cur)

    for i, rec in recs:
        typ = rec.get("type")
        p = rec.get("payload") or {}
        if typ is None and "record_type" not in rec and "role" in rec:  # old rollout format: bare items
            typ, p = "response_item", rec
        prompt = None
        if has_event_user and typ == "event_msg" and p.get("type") == "user_message":
            prompt = p.get("message", "")
        elif not has_event_user and typ == "response_item" and p.get("type") == "message" and p.get("role") == "user":
            t = "\n".join(c.get("text", "") for c in p.get("content", []) if isinstance(c, dict))
            if not t.lstrip().startswith(("<environment_context>", "<user_instructions>", "# AGENTS.md")):
                prompt = t
        if prompt is not None and prompt.strip():
            close()
            cur = {"path": path, "kind": "codex", "prompt": prompt.strip(), "tools": [], "raw_tools": [],
                   "final": None, "last_is_text": False}
            continue
        if cur is None or typ != "response_item":
            continue
        pt = p.get("type")
        if pt in ("function_call", "custom_tool_call", "local_shell_call"):
            name = p.get("name", "local_shell" if pt == "local_shell_call" else "")
            args = p.get("arguments") if pt == "function_call" else p.get("input", p.get("action"))
            if isinstance(args, str) and pt == "function_call":
                try:
                    args = json.loads(args)
                except Exception:
                    pass
            if name in ("shell", "container.exec", "exec_command", "local_shell", "shell_command"):
                if isinstance(args, dict):
                    cmd = args.get("command") or args.get("cmd") or ""
                    if isinstance(cmd, list) and len(cmd) >= 3 and cmd[0] == "apply_patch":
                        cur["tools"].append("E"); cur["raw_tools"].append("apply_patch")
                        cur["last_is_text"] = False
                        continue
                    if isinstance(cmd, list) and cmd and cmd[0] == "apply_patch":
                        cur["tools"].append("E"); cur["raw_tools"].append("apply_patch")
                        cur["last_is_text"] = False
                        continue
                    c = clean_cmd(cmd)
                    if c.startswith("apply_patch"):
                        cur["tools"].append("W" if "*** Add File" in str(cmd) and "*** Update File" not in str(cmd) else "E")
                        cur["raw_tools"].append("apply_patch")
                    else:
                        cur["tools"].append("B:" + c); cur["raw_tools"].append(name)
                else:
                    cur["tools"].append("B:" + clean_cmd(args)); cur["raw_tools"].append(name)
            else:
                cur["tools"].append(tool_code(name, args)); cur["raw_tools"].append(name)
            cur["last_is_text"] = False
        elif pt == "message" and p.get("role") == "assistant":
            t = "\n".join(c.get("text", "") for c in p.get("content", []) if isinstance(c, dict)).strip()
            if t:
                cur["final"] = t
                cur["line"] = i
                cur["last_is_text"] = True
    close()
    return turns


# ---------------------------------------------------------------- Gemini CLI chat JSON
def extract_gemini(text, path):
    try:
        doc = json.loads(text)
    except Exception:
        return []
    msgs = doc.get("messages") if isinstance(doc, dict) else doc
    if not isinstance(msgs, list):
        return []
    lines = text.splitlines()
    turns = []
    cur = None
    search_from = 0

    def find_line(s):
        nonlocal search_from
        key = json.dumps(s[:60])[1:-1]
        for j in range(search_from, len(lines)):
            if key in lines[j]:
                search_from = j
                return j + 1
        return None

    for m in msgs:
        if not isinstance(m, dict):
            continue
        typ = m.get("type") or m.get("role")
        content = m.get("content")
        if isinstance(content, list):
            content = "\n".join(c.get("text", "") for c in content if isinstance(c, dict))
        if typ == "user":
            if cur and cur.get("final") is not None and cur["last_is_text"]:
                turns.append(cur)
            cur = {"path": path, "kind": "gemini", "prompt": (content or "").strip(), "tools": [],
                   "raw_tools": [], "final": None, "last_is_text": False}
            continue
        if cur is None or typ not in ("gemini", "model", "assistant"):
            continue
        for tc in m.get("toolCalls") or []:
            cur["tools"].append(tool_code(tc.get("name", ""), tc.get("args", {})))
            cur["raw_tools"].append(tc.get("name", ""))
            cur["last_is_text"] = False
        if content and content.strip():
            cur["final"] = content
            cur["line"] = find_line(content)
            cur["last_is_text"] = not (m.get("toolCalls"))
    if cur and cur.get("final") is not None and cur["last_is_text"]:
        turns.append(cur)
    return turns


def json_array_records(text):
    """A JSON array of transcript records (e.g. logs/chat.json written by a Stop hook): return it as
    JSONL-like lines, each element paired with the 1-based line where it starts in the file."""
    dec = json.JSONDecoder()
    i = text.index("[") + 1
    out = []
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] == "]":
            break
        obj, j = dec.raw_decode(text, i)
        out.append((text.count("\n", 0, i) + 1, obj))
        i = j
    return out


def extract(text, path):
    head = text.lstrip()[:4000]
    if head.startswith("["):
        try:
            recs = json_array_records(text)
        except Exception:
            recs = []
        if any(isinstance(r, dict) and ("sessionId" in r or "parentUuid" in r) for _, r in recs[:20]):
            return extract_claude_records(recs, path)
    if head.startswith("{") and ('"session_meta"' in head or '"response_item"' in head or
                                 '"record_type"' in head):
        return extract_codex(text, path)
    if head.startswith("{") and '"messages"' in head and '"sessionId"' in head and "\n{" not in text[:2000]:
        return extract_gemini(text, path)
    if head.startswith("[") or (head.startswith("{") and '"messages"' in head[:300]):
        return extract_gemini(text, path)
    return extract_claude(text, path)


def changed(tools):
    for t in tools:
        if t in ("W", "E"):
            return True
        if t.startswith("B:") and re.search(
                r"(^|[;&| ])(rm|mv|cp|mkdir|touch|sed -i|tee|git (commit|mv|rm|apply|checkout|reset|merge|rebase)|"
                r"npm (install|i)|pip install|cargo (add|new|fmt)|patch|chmod|ln)( |$)|>>?[ ]*[^&]", t[2:]):
            return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir")
    ap.add_argument("--commit", default="HEAD")
    ap.add_argument("--file")
    ap.add_argument("--path")
    ap.add_argument("--scan", action="store_true")
    ap.add_argument("--all-versions", action="store_true",
                    help="read every version of each PATH in the history (files overwritten per session)")
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    jobs = []
    if a.file:
        jobs.append((a.path or a.file, open(a.file, encoding="utf-8", errors="replace").read()))
    else:
        commit = subprocess.run(["git", "--git-dir", a.git_dir, "rev-parse", a.commit],
                                capture_output=True, text=True, check=True).stdout.strip()
        paths = list(a.paths)
        if a.scan:
            ls = subprocess.run(["git", "--git-dir", a.git_dir, "ls-tree", "-r", "--name-only", commit],
                                capture_output=True, text=True, check=True).stdout.splitlines()
            paths += [p for p in ls if p.endswith((".jsonl", ".json"))]
        for p in paths:
            commits = [commit]
            if a.all_versions:
                commits = subprocess.run(["git", "--git-dir", a.git_dir, "log", "--all", "--format=%H", "--", p],
                                         capture_output=True, text=True).stdout.split() or [commit]
            for c in commits:
                try:
                    jobs.append((p, git_show(a.git_dir, c, p), c))
                except subprocess.CalledProcessError:
                    print(f"cannot read {p} at {c}", file=sys.stderr)
    seen = set()
    for job in jobs:
        path, text = job[0], job[1]
        commit = job[2] if len(job) > 2 else None
        try:
            turns = extract(text, path)
        except Exception as e:  # a malformed file: report and continue
            print(f"{path}: {e}", file=sys.stderr)
            continue
        for t in turns:
            key = (t["prompt"], t["final"])
            if key in seen:
                continue
            seen.add(key)
            out = {"path": path, "commit": commit, "line": t.get("line"), "kind": t["kind"],
                   "prompt": t["prompt"], "tools": t["tools"], "raw_tools": t["raw_tools"],
                   "text": t["final"], "changed": changed(t["tools"]), "ntools": len(t["tools"])}
            print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
