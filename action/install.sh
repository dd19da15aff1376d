#!/usr/bin/env bash
# Installs a release of review for the action (action.yml): downloads the
# archive for this runner, checks it against the release's checksums file
# and puts the binary on the job's PATH. Nothing is built and nothing runs
# before the checksum matches.
#
# Environment:
#   REVIEW_VERSION       the release, e.g. v1.2.3 (required)
#   REVIEW_DOWNLOAD_URL  where releases are, default
#                        https://github.com/reviewdev/review/releases/download
#                        (a mirror, or a local server in tests)
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH  as GitHub Actions sets them
set -euo pipefail

fail() {
	echo "::error title=review install::$*"
	exit 1
}

version=${REVIEW_VERSION:-}
[ -n "$version" ] || fail "no version to install: set the action's version input (e.g. version: v1.2.3), or build-from-source: true"
num=${version#v}
case "$num" in
[0-9]*.[0-9]*.[0-9]*) ;;
*) fail "version \"$version\" is not a release version such as v1.2.3" ;;
esac
base=${REVIEW_DOWNLOAD_URL:-https://github.com/reviewdev/review/releases/download}
base=${base%/}

case "${RUNNER_OS:-$(uname -s)}" in
Linux) os=linux ;;
macOS | Darwin) os=darwin ;;
Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
*) fail "no release of review for the runner OS ${RUNNER_OS:-unknown}" ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
X64 | x86_64 | amd64) arch=amd64 ;;
ARM64 | aarch64 | arm64) arch=arm64 ;;
*) fail "no release of review for the runner architecture ${RUNNER_ARCH:-unknown}; use build-from-source: true" ;;
esac
ext=tar.gz
exe=review
if [ "$os" = windows ]; then
	ext=zip
	exe=review.exe
fi

asset="review_${num}_${os}_${arch}.${ext}"
sums="review_${num}_checksums.txt"
dir="${RUNNER_TEMP:-$(mktemp -d)}/review-${num}"
mkdir -p "$dir"
cd "$dir"

fetch() {
	curl --fail --silent --show-error --location --retry 3 --retry-delay 2 --output "$2" "$1" ||
		fail "cannot download $1: is $version a release of review?"
}
fetch "$base/v$num/$sums" "$sums"
fetch "$base/v$num/$asset" "$asset"

# The checksums file lists every archive; check this one, and fail when it
# is not listed at all (sha256sum -c would pass on an empty list).
grep -E "^[0-9a-f]{64}  $asset\$" "$sums" >"$asset.sha256" ||
	fail "$sums of $version does not list $asset"
if command -v sha256sum >/dev/null; then
	sha256sum --check --strict --quiet "$asset.sha256" ||
		fail "$asset does not match its checksum in $sums: the download is damaged or not the release"
else
	shasum --algorithm 256 --check --strict --quiet "$asset.sha256" ||
		fail "$asset does not match its checksum in $sums: the download is damaged or not the release"
fi

if [ "$ext" = zip ]; then
	unzip -q -o "$asset" "$exe"
else
	tar -xzf "$asset" "$exe"
fi
chmod +x "$exe"
rm -f "$asset"
if [ -n "${GITHUB_PATH:-}" ]; then
	echo "$dir" >>"$GITHUB_PATH"
fi
echo "review: installed $version ($asset, sha256 checked) in $dir"
