# Sourced by .ci/start and .ci/shapes. base_rev REV builds REV's review
# binary as the benchmarks build this tree's (CGO_ENABLED=0, -trimpath,
# -ldflags='-s -w'), from git archive (the work tree is not used), exports
# REVIEW_BASE_BIN naming it and sets base to REV's short hash. The binary
# is removed when the script exits.
base_rev() {
	local rev
	rev=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "$(basename "$0"): $1 is not a commit" >&2; exit 2; }
	base_tmp=$(mktemp -d)
	trap 'rm -rf "$base_tmp"' EXIT
	mkdir -p "$base_tmp/src"
	git archive "$rev" | tar -x -C "$base_tmp/src"
	(cd "$base_tmp/src" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$base_tmp/review" .)
	base=$(git log -1 --format=%h "$rev")
	export REVIEW_BASE_BIN=$base_tmp/review
}
