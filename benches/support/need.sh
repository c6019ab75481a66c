# Sourced by the bench scripts: `need COMMAND [DEBIAN_PACKAGE]` installs
# the Debian package that provides COMMAND when it is missing.
need() {
    local cmd=$1 pkg=${2:-$1}
    command -v "$cmd" >/dev/null 2>&1 && return
    echo "installing $pkg (Debian package)..." >&2
    apt-get install -y "$pkg" >/dev/null 2>&1 \
        || { apt-get update >/dev/null && apt-get install -y "$pkg" >/dev/null; }
}
