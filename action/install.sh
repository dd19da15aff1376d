#!/usr/bin/env bash
# Installs a release of review for the action (action.yml): downloads the
# archive for this runner, checks it against the release's checksums file
# and puts the binary on the job's PATH. Nothing is built and nothing runs
# before the checksum matches.
#
# Which release: the action's own when it runs at a release tag
# (uses: reviewdev/review@v1.2.3) and no other version is asked for;
# otherwise REVIEW_VERSION, where latest is the newest release. So the
# action installs at @v1 (the release workflow moves v1 to each v1.x.y),
# at a commit SHA and at a branch.
#
# Environment:
#   REVIEW_VERSION       a release (v1.2.3) or latest; empty means latest
#   REVIEW_ACTION_REF    the ref the action runs at (github.action_ref):
#                        v1.2.3, v1, a branch, a commit SHA, or empty for
#                        a local action (uses: ./)
#   REVIEW_ACTION_PATH   the action's directory (github.action_path): on a
#                        runner .../_actions/OWNER/REPO/REF, where the ref is
#                        read from when REVIEW_ACTION_REF is empty, as
#                        composite actions may see it
#   REVIEW_DOWNLOAD_URL  where releases are, default
#                        https://github.com/reviewdev/review/releases/download
#                        (a mirror, or a local server in tests); latest is
#                        asked of the same URL without /download, plus
#                        /latest, which redirects to .../tag/VERSION as
#                        GitHub's does
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH  as GitHub Actions sets them
set -euo pipefail

fail() {
	echo "::error title=review install::$*"
	exit 1
}

base=${REVIEW_DOWNLOAD_URL:-https://github.com/reviewdev/review/releases/download}
base=${base%/}
release='^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'

ref=${REVIEW_ACTION_REF:-}
if [ -z "$ref" ] && [[ "${REVIEW_ACTION_PATH:-}" == */_actions/*/*/* ]]; then
	ref=${REVIEW_ACTION_PATH%/}
	ref=${ref##*/}
fi
version=${REVIEW_VERSION:-latest}
case "$version" in
[0-9]*) version=v$version ;;
esac
if [ "$version" = latest ] && [[ "$ref" =~ $release ]]; then
	version=$ref
	why="the action's tag"
elif [ "$version" = latest ]; then
	# GitHub answers /releases/latest with a redirect to the newest
	# release's page, .../releases/tag/v1.2.3: no API call, no rate limit.
	latest_url="${base%/download}/latest"
	page=$(curl --fail --silent --show-error --location --retry 3 --retry-delay 2 \
		--output /dev/null --write-out '%{url_effective}' "$latest_url") ||
		fail "cannot look up the newest release at $latest_url: set the action's version input (e.g. version: v1.2.3), or build-from-source: true"
	version=${page%/}
	version=${version##*/}
	[[ "$page" == */tag/* && "$version" =~ $release ]] ||
		fail "no release of review found at $latest_url (it led to $page): set the action's version input (e.g. version: v1.2.3), or build-from-source: true"
	why="the newest release"
	# At a major tag (@v1) the action's steps are v1's; a newer major's
	# binary may not take the flags they pass.
	major=${version#v}
	major=v${major%%.*}
	if [[ "$ref" =~ ^v[0-9]+(\.[0-9]+)?$ ]] && [ "${ref%%.*}" != "$major" ]; then
		echo "::warning title=review install::the newest release is $version, of $major, but the action runs at $ref: set its version input to a ${ref%%.*} release to keep them together"
	fi
else
	why="the version input"
fi
num=${version#v}
[[ "$version" =~ $release ]] ||
	fail "version \"$version\" is not a release version such as v1.2.3 (or latest)"
if [ -n "$ref" ]; then
	echo "review: installing $version, $why (the action runs at $ref)"
else
	echo "review: installing $version, $why"
fi

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
