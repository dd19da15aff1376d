package diffctx

import (
	"path"
	"strings"
	"unicode"

	"github.com/reviewdev/review/internal/injection"
)

// tag sets f.Tags from its path, its flags and, where cheap, its changed
// lines. Tags are hints for ordering the context, so a false positive only
// moves a file forward; the lists favour recall for security.
func tag(f *File) {
	p := f.Path
	base := path.Base(p)
	lowerBase := strings.ToLower(base)
	dirs := strings.Split(path.Dir(strings.ToLower(p)), "/")

	lock := lockfiles[base]
	generated := !lock && (generatedPath(lowerBase, dirs) || generatedContent(f))
	test := testPath(base, lowerBase, dirs)
	docs := !test && docsPath(lowerBase, dirs)
	config := !lock && !generated && configPath(p, lowerBase)
	// A file moved away from security-relevant code stays relevant.
	steering := injection.Steering(p)
	security := steering || securityPath(p, lowerBase) ||
		f.OldPath != "" && f.OldPath != p && securityPath(f.OldPath, strings.ToLower(path.Base(f.OldPath)))
	if !security && !f.Binary && !lock && !generated && !docs {
		security = securityContent(f)
	}

	f.Tags = make([]string, 0, 3)
	for _, t := range []struct {
		on  bool
		tag string
	}{
		{security, TagSecurity}, {config, TagConfig}, {test, TagTest}, {docs, TagDocs},
		{generated, TagGenerated}, {lock, TagLockfile}, {f.Binary, TagBinary}, {steering, TagSteering},
	} {
		if t.on {
			f.Tags = append(f.Tags, t.tag)
		}
	}
}

// lockfiles are dependency lock files by base name.
var lockfiles = map[string]bool{
	"go.sum": true, "go.work.sum": true, "package-lock.json": true, "npm-shrinkwrap.json": true,
	"yarn.lock": true, "pnpm-lock.yaml": true, "bun.lock": true, "bun.lockb": true,
	"deno.lock": true, "Cargo.lock": true, "poetry.lock": true, "Pipfile.lock": true,
	"uv.lock": true, "pdm.lock": true, "Gemfile.lock": true, "composer.lock": true,
	"flake.lock": true, "packages.lock.json": true, "paket.lock": true, "pubspec.lock": true,
	"mix.lock": true, "Podfile.lock": true, "Package.resolved": true, "gradle.lockfile": true,
	"conan.lock": true, ".terraform.lock.hcl": true, "Manifest.toml": true, "rebar.lock": true,
}

func generatedPath(lowerBase string, dirs []string) bool {
	for _, d := range dirs {
		switch d {
		case "vendor", "node_modules", "dist", "__generated__", "generated", "bower_components":
			return true
		}
	}
	for _, s := range []string{".pb.go", ".pb.gw.go", "_pb2.py", "_pb2_grpc.py", ".pb.h", ".pb.cc",
		".min.js", ".min.css", ".js.map", ".css.map", ".gen.go", ".g.dart", ".freezed.dart"} {
		if strings.HasSuffix(lowerBase, s) {
			return true
		}
	}
	return strings.Contains(lowerBase, "_generated.") || strings.Contains(lowerBase, ".generated.") ||
		strings.HasPrefix(lowerBase, "zz_generated")
}

// markerLines bounds the search for a generated-code marker: tools write it
// at the top of the file, at most after a licence header.
const markerLines = 50

// generatedContent looks for a generated-code marker ("Code generated ...
// DO NOT EDIT." as Go specifies it, or "@generated") at the start of a new
// side line, after any comment leader, near the top of the file.
func generatedContent(f *File) bool {
	found := false
	for i := range f.Hunks {
		h := &f.Hunks[i]
		if h.NewStart > markerLines {
			break
		}
		h.walk(func(op byte, text string, n int) bool {
			if n == 0 {
				return true
			}
			t := strings.TrimLeft(text, " \t/#*;%-<!")
			found = strings.HasPrefix(t, "@generated") ||
				strings.HasPrefix(t, "Code generated") && strings.Contains(t, "DO NOT EDIT")
			return !found && n < markerLines
		})
		if found {
			return true
		}
	}
	return false
}

func testPath(base, lowerBase string, dirs []string) bool {
	for _, d := range dirs {
		switch d {
		case "test", "tests", "__tests__", "testdata", "spec", "specs", "e2e", "__mocks__", "__snapshots__", "fixtures":
			return true
		}
	}
	ext := path.Ext(lowerBase)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(lowerBase, "_test.go"),
		strings.HasPrefix(lowerBase, "test_") && ext == ".py",
		strings.HasSuffix(lowerBase, "_test.py"), lowerBase == "conftest.py",
		strings.Contains(lowerBase, ".test."), strings.Contains(lowerBase, ".spec."),
		strings.HasSuffix(lowerBase, "_spec.rb"), strings.HasSuffix(lowerBase, "_test.rb"),
		strings.HasSuffix(lowerBase, "_test.exs"), strings.HasSuffix(lowerBase, "_test.cc"),
		strings.HasSuffix(lowerBase, "_test.cpp"), strings.HasSuffix(lowerBase, "_test.c"):
		return true
	}
	switch ext {
	case ".java", ".kt", ".scala", ".cs", ".php", ".swift", ".groovy":
		return strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") ||
			strings.HasSuffix(stem, "Spec") || strings.HasSuffix(stem, "IT")
	}
	return false
}

func docsPath(lowerBase string, dirs []string) bool {
	switch path.Ext(lowerBase) {
	case ".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".txt", ".org":
		if path.Ext(lowerBase) != ".txt" || dirs[0] == "doc" || dirs[0] == "docs" {
			return true
		}
	}
	for _, d := range dirs {
		if d == "doc" || d == "docs" || d == "documentation" {
			return true
		}
	}
	for _, prefix := range []string{"readme", "changelog", "changes", "license", "licence",
		"copying", "authors", "contributing", "notice", "code_of_conduct", "security.md"} {
		if strings.HasPrefix(lowerBase, prefix) {
			return true
		}
	}
	return false
}

func configPath(p, lowerBase string) bool {
	switch path.Ext(lowerBase) {
	case ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".properties", ".json", ".jsonc",
		".json5", ".env", ".mk", ".cmake", ".tf", ".tfvars", ".hcl", ".gradle", ".kts", ".service":
		return true
	}
	switch lowerBase {
	case "makefile", "gnumakefile", "dockerfile", "containerfile", "cmakelists.txt", "go.mod",
		"go.work", "pom.xml", "gemfile", "pipfile", "procfile", "vagrantfile", "jenkinsfile",
		".editorconfig", ".gitignore", ".gitattributes", ".gitmodules", ".dockerignore",
		".npmrc", ".nvmrc", ".yarnrc", ".pypirc", ".babelrc", ".eslintrc", ".prettierrc",
		"codeowners":
		return true
	}
	return strings.HasPrefix(lowerBase, ".env") || strings.HasPrefix(lowerBase, "dockerfile.") ||
		strings.HasPrefix(lowerBase, "requirements") && strings.HasSuffix(lowerBase, ".txt") ||
		strings.HasPrefix(p, ".github/")
}

// securityWords are path words (split at punctuation and camel case) that
// mark code handling authentication, secrets, crypto, permissions and the
// like; securityStems match as word prefixes.
var (
	securityWords = map[string]bool{
		"auth": true, "authn": true, "authz": true, "oauth": true, "oauth2": true, "oidc": true,
		"saml": true, "sso": true, "login": true, "logout": true, "signin": true, "signup": true,
		"passwd": true, "secret": true, "secrets": true, "token": true, "tokens": true, "jwt": true,
		"crypto": true, "cipher": true, "crypt": true, "session": true, "sessions": true,
		"acl": true, "rbac": true, "iam": true, "policy": true, "policies": true, "csrf": true,
		"xss": true, "cors": true, "tls": true, "ssl": true, "cert": true, "certs": true,
		"sql": true, "sudo": true, "sudoers": true, "firewall": true, "hmac": true, "vault": true,
		"kms": true, "keystore": true, "keychain": true, "apikey": true, "security": true,
		"secure": true, "captcha": true, "totp": true, "mfa": true, "otp": true, "webauthn": true,
		"passkey": true, "sandbox": true, "seccomp": true, "apparmor": true, "selinux": true,
		"htpasswd": true, "htaccess": true, "codeowners": true, "x509": true, "pki": true,
	}
	securityStems = []string{"authenticat", "authoriz", "password", "credential", "permission",
		"privilege", "encrypt", "decrypt", "sanitiz", "certificate"}
)

func securityPath(p, lowerBase string) bool {
	switch {
	case strings.HasPrefix(p, ".github/workflows/"), strings.HasPrefix(p, ".github/actions/"),
		strings.HasPrefix(p, ".circleci/"), strings.HasPrefix(p, ".buildkite/"),
		lowerBase == ".gitlab-ci.yml", lowerBase == "jenkinsfile", lowerBase == ".travis.yml",
		lowerBase == "azure-pipelines.yml", lowerBase == "bitbucket-pipelines.yml",
		lowerBase == "dockerfile", lowerBase == "containerfile",
		strings.HasPrefix(lowerBase, "dockerfile."), strings.HasSuffix(lowerBase, ".dockerfile"),
		strings.HasPrefix(lowerBase, "docker-compose"), strings.HasPrefix(lowerBase, "compose."),
		strings.HasPrefix(lowerBase, ".env"), strings.HasPrefix(lowerBase, "id_rsa"),
		strings.HasPrefix(lowerBase, "id_ed25519"), lowerBase == ".npmrc", lowerBase == ".pypirc":
		return true
	}
	switch path.Ext(lowerBase) {
	case ".pem", ".key", ".crt", ".cer", ".p12", ".pfx", ".jks", ".kdbx", ".gpg", ".asc":
		return true
	}
	for _, w := range words(p) {
		if securityWords[w] {
			return true
		}
		for _, s := range securityStems {
			if strings.HasPrefix(w, s) {
				return true
			}
		}
	}
	return false
}

// words splits a path into lower-case words at punctuation and at
// camel-case humps: "pkg/userAuth_v2.go" gives pkg, user, auth, v2, go.
func words(p string) []string {
	var out []string
	var w strings.Builder
	emit := func() {
		if w.Len() > 0 {
			out = append(out, strings.ToLower(w.String()))
			w.Reset()
		}
	}
	prevLower := false
	for _, r := range p {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				emit()
			}
			w.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		default:
			emit()
			prevLower = false
		}
	}
	emit()
	return out
}

// securityTerms are lower-case fragments of changed lines that touch
// secrets, authentication, crypto, injection-prone APIs or permissions.
var securityTerms = [][]byte{
	[]byte("password"), []byte("passwd"), []byte("secret"), []byte("api_key"), []byte("apikey"),
	[]byte("api-key"), []byte("private_key"), []byte("privatekey"), []byte("private key"),
	[]byte("-----begin "), []byte("access_token"), []byte("accesstoken"), []byte("refresh_token"),
	[]byte("refreshtoken"), []byte("auth_token"), []byte("authtoken"), []byte("bearer"),
	[]byte("jwt"), []byte("oauth"), []byte("csrf"), []byte("cors"), []byte("session"),
	[]byte("cookie"), []byte("authoriz"), []byte("authenticat"), []byte("permission"),
	[]byte("sanitiz"), []byte("crypto"), []byte("cipher"), []byte("encrypt"), []byte("decrypt"),
	[]byte("hmac"), []byte("bcrypt"), []byte("md5"), []byte("sha1"), []byte("x509"),
	[]byte("insecureskipverify"), []byte("verify=false"), []byte("sql"), []byte("select "),
	[]byte("insert into"), []byte("delete from"), []byte("drop table"), []byte("exec.command"),
	[]byte("os/exec"), []byte("subprocess"), []byte("child_process"), []byte("eval("),
	[]byte("system("), []byte("shell=true"), []byte("innerhtml"), []byte("chmod"),
	[]byte("setuid"), []byte("0777"), []byte("unsafe."), []byte("pickle.load"), []byte("yaml.load("),
}

// securityContent scans changed lines for securityTerms.
func securityContent(f *File) bool {
	for i := range f.Hunks {
		if securityLines(f.Hunks[i].Body) {
			return true
		}
	}
	return false
}

// termsByFirst indexes securityTerms by their first byte, so a line is
// read once, not once per term.
var termsByFirst = func() (t [256][][]byte) {
	for _, term := range securityTerms {
		t[term[0]] = append(t[term[0]], term)
	}
	return t
}()

// securityLines reports whether a changed line of a hunk's body names a
// security-relevant term, in any ASCII case.
func securityLines(body string) bool {
	for body != "" {
		line := body
		if j := strings.IndexByte(body, '\n'); j >= 0 {
			line, body = body[:j], body[j+1:]
		} else {
			body = ""
		}
		if line == "" || (line[0] != '+' && line[0] != '-') {
			continue
		}
		if hasTerm(line[1:]) {
			return true
		}
	}
	return false
}

// hasTerm reports whether line holds a security term, in any ASCII case.
func hasTerm(line string) bool {
	for i := 0; i < len(line); i++ {
		for _, t := range termsByFirst[lowerASCII(line[i])] {
			if len(line)-i >= len(t) && equalFoldASCII(line[i:i+len(t)], t) {
				return true
			}
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFoldASCII compares s with the lower-case t, folding ASCII letters.
func equalFoldASCII(s string, t []byte) bool {
	for i := range t {
		if lowerASCII(s[i]) != t[i] {
			return false
		}
	}
	return true
}
