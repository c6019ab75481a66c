# Sourced by the benches: `many_sessions N` makes (once) and prints
# target/stopgate-bench/many-N/, N copies of
# fixtures/transcripts/turn_kinds.jsonl (7 KB, 6 turns, findings
# included), each with its own session id, in folders of 1,000.
many_sessions() {
    local n=$1 dir=target/stopgate-bench/many-$1
    if [ ! -d "$dir" ]; then
        python3 - "$dir" "$n" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
src = open("fixtures/transcripts/turn_kinds.jsonl").read()
tmp = root + ".tmp"
for i in range(n):
    d = os.path.join(tmp, "proj-%03d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    sid = "%08x-0000-4000-8000-%012x" % (i, i)
    with open(os.path.join(d, sid + ".jsonl"), "w") as f:
        f.write(src.replace('"sessionId":"', '"sessionId":"' + sid + '-'))
os.rename(tmp, root)
PY
    fi
    echo "$dir"
}
