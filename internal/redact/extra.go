package redact

import (
	"strings"
)

// This package's own detectors, for what gitleaks' rules leave out by
// design: gitleaks' generic rule wants a long random value and misses a
// short password; it has no rule for credentials in a URL; and its
// private-key rule needs the END line, which a tool's page of a file may
// not reach.

// IDs of this package's own rules.
const (
	RuleAssignment = "generic-password"
	RuleURL        = "url-credentials"
	RulePrivateKey = "private-key" // shared with gitleaks' rule for whole blocks
	RuleKeyLines   = "pem-key-lines"
)

// descNextLine describes the part of RuleAssignment that reads a value
// on the line after its name.
const descNextLine = "A password, token or key given a literal value on the line after its name (a YAML block, a continued line)."

func extraRules() []*rule {
	return []*rule{
		{
			id:       RuleAssignment,
			desc:     "A password, token or key assigned a literal value in code or configuration.",
			keywords: []string{"pass", "pwd", "secret", "token", "key", "credential"},
			prio:     prioAssignment,
			conf:     Low,
			ext:      extent{bytes: -1},
			extra:    assignments,
		},
		{
			id:       RuleAssignment,
			desc:     descNextLine,
			keywords: []string{"pass", "pwd", "secret", "token", "key", "credential"},
			prio:     prioAssignment,
			conf:     Low,
			ext:      extent{bytes: -1},
			extra:    nextLineValues,
		},
		{
			id:       RuleURL,
			desc:     "A URL carrying a user name and password.",
			keywords: []string{"://"},
			prio:     prioURL,
			conf:     Low,
			ext:      extent{bytes: -1},
			extra:    urlCredentials,
		},
		{
			id:       RulePrivateKey,
			desc:     "A private key block whose END line is not in the text.",
			keywords: []string{"-----begin"},
			prio:     prioKeyBlock,
			conf:     High,
			ext:      unbounded(),
			extra:    openKeyBlocks,
		},
		{
			id:    RuleKeyLines,
			desc:  "Lines of base64 shaped like the body of a PEM or OpenSSH key, without its header.",
			prio:  prioGuard,
			conf:  Low,
			ext:   unbounded(),
			extra: keyLines,
		},
	}
}

// secretName reports whether an identifier, in lower case, names a
// secret: its last part is a password, secret, token, credential or a key
// of a kind that is secret. Names that only start so (tokenizer,
// password_hint, max_tokens) do not end so. (A regular expression said
// the same at a tenth of the speed, on every name holding a keyword.)
func secretName(name string) bool {
	for _, end := range secretNameEnds {
		if strings.HasSuffix(name, end) {
			return true
		}
	}
	rest, ok := strings.CutSuffix(name, "key")
	if !ok {
		return false
	}
	if n := len(rest); n > 0 && (rest[n-1] == '_' || rest[n-1] == '.' || rest[n-1] == '-') {
		rest = rest[:n-1]
	}
	for _, kind := range secretKeyKinds {
		if strings.HasSuffix(rest, kind) {
			return true
		}
	}
	return false
}

var (
	secretNameEnds = []string{"password", "passwd", "passphrase", "pwd", "pass", "secret", "token", "credential", "credentials"}
	secretKeyKinds = []string{"api", "access", "secret", "private", "auth", "signing", "encryption", "master", "client", "app"}
)

var (
	// quotedValue follows a name in name = "value", in most languages and
	// formats: =, :=, :, =>, == (a hard-coded comparison), or, after a
	// quoted name, a comma, as in a call setting a header (group 1).
	quotedValue = lazyRE(`^(?:["'\]]*[ \t]*(?::=|=>|==|=|:)|(["'])[ \t]*,)[ \t]*` +
		`(?:[a-zA-Z]{0,2}"((?:[^"\\\n]|\\.){6,200})"|'([^'\n]{6,200})'|` + "`([^`\\n]{6,200})`" + `)`)
	// bareLead and bareValue make NAME=value or name: value alone on a
	// line, as in .env, YAML, INI and properties files, after
	// read_file_hunk's line number or a diff's marker if any.
	bareLead  = lazyRE(`^[ \t]*(?:\d+: )?[+ -]?[ \t]*(?:export[ \t]+|-[ \t]+)?["']?$`)
	bareValue = lazyRE(`^["']?[ \t]*[=:][ \t]*([^\s"'` + "`" + `#]{6,200})[ \t]*(?:#.*)?\r?$`)
	// inlineValue is NAME=value with more on its line: in a sentence
	// ("the .env says DB_PASSWORD=…, is that ok?"), in brackets, before a
	// comment. The value ends at whitespace, a quote, a comma, a bracket
	// or a semicolon; sentence punctuation at its end is trimmed after.
	inlineValue = lazyRE(`^["']?[ \t]*(?::=|=|:)[ \t]*([^\s"'` + "`" + `,;()\[\]{}<>]{6,200})`)
)

// maxAssignRest is how much of a long line after a name assignments
// reads: enough for an operator, quotes and the longest value, 200 bytes.
const maxAssignRest = 256

// namesAssigned calls fn with each name of a secret holding one of rl's
// keywords that an operator follows: the name's span in t's text, its
// line, and the line's start and end (without its line break). It looks
// only at the identifiers holding the keywords: a regular expression
// searching every line for them would cost more than all of gitleaks'
// rules.
func namesAssigned(t *target, rl *rule, fn func(s, e, l, ls, le int)) {
	text, lower := t.text, t.lower
	done := -1 // the end of the last identifier looked at
	for _, p := range t.positions(rl) {
		if p < done {
			continue
		}
		s, e := p, p
		for s > 0 && identByte(lower[s-1]) {
			s--
		}
		for e < len(lower) && identByte(lower[e]) {
			e++
		}
		done = e
		if !secretName(lower[s:e]) {
			continue
		}
		l := t.line(s)
		ls, le := t.lineStart(l), t.lineEnd(l)
		if le > ls && text[le-1] == '\n' {
			le--
		}
		if operatorNext(text[e:le]) {
			fn(s, e, l, ls, le)
		}
	}
}

// assignments finds literal values assigned to names of secrets on the
// names' lines.
func assignments(t *target, rl *rule, _ []window) [][2]int {
	var out [][2]int
	text := t.text
	namesAssigned(t, rl, func(s, e, _, ls, le int) {
		rest := text[e:le]
		if len(rest) > longLine {
			// A value is at most 200 bytes: the rest of a minified
			// bundle's line need not be looked at.
			rest = rest[:maxAssignRest]
		}
		if m := quotedValue().FindStringSubmatchIndex(rest); m != nil && (m[2] < 0 || (s > 0 && text[s-1] == rest[m[2]])) {
			for g := 2; g <= 4; g++ {
				if vs, ve := m[2*g], m[2*g+1]; vs >= 0 && secretValue(rest[vs:ve], true) {
					out = append(out, [2]int{e + vs, e + ve})
				}
			}
			return
		}
		if bareLeadChars(text[ls:s]) && bareLead().MatchString(text[ls:s]) {
			if m := bareValue().FindStringSubmatchIndex(rest); m != nil && secretValue(rest[m[2]:m[3]], false) {
				out = append(out, [2]int{e + m[2], e + m[3]})
				return
			}
		}
		if vs, ve, ok := inline(rest); ok {
			out = append(out, [2]int{e + vs, e + ve})
		}
	})
	return out
}

// nextLineValues finds literal values given to names of secrets on the
// lines below them (see nextLineValue).
func nextLineValues(t *target, rl *rule, _ []window) [][2]int {
	var out [][2]int
	namesAssigned(t, rl, func(s, e, l, ls, le int) {
		if sp, ok := t.nextLineValue(l, t.text[ls:s], t.text[e:le]); ok {
			out = append(out, sp)
		}
	})
	return out
}

// inline finds the value of NAME=value followed by more text on its line,
// where a value alone on its line is bareValue's: a secret in a question
// or a note is as secret as one in a .env file. What code writes after a
// name is told apart by what follows the value: a call or an index
// (token = newToken(…)), or a snake_case name passed on (password=db_pass,).
func inline(rest string) (start, end int, ok bool) {
	m := inlineValue().FindStringSubmatchIndex(rest)
	if m == nil {
		return 0, 0, false
	}
	start, end = m[2], m[3]
	if end < len(rest) && strings.IndexByte("([{", rest[end]) >= 0 {
		return 0, 0, false
	}
	end = start + len(strings.TrimRight(rest[start:end], ".!?:"))
	v := rest[start:end]
	if identifier(v) && strings.Contains(v, "_") {
		return 0, 0, false
	}
	return start, end, secretValue(v, false)
}

// identifier reports whether v could name a variable: letters, digits and
// underscores, not starting with a digit.
func identifier(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return v != ""
}

// operatorNext reports whether what follows a name may hold the operator
// quotedValue or bareValue need: after quotes, a closing bracket and
// space, "=" or ":", or "," after a quote. Most names of secrets in code
// are not assigned, and the expressions cost far more than this look.
func operatorNext(rest string) bool {
	i, quoted := 0, false
	for i < len(rest) && strings.IndexByte(`"']`, rest[i]) >= 0 {
		quoted = quoted || rest[i] != ']'
		i++
	}
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
		i++
	}
	return i < len(rest) && (rest[i] == '=' || rest[i] == ':' || rest[i] == ',' && quoted)
}

// bareLeadChars reports whether lead, the line before a name, holds only
// what bareLead allows, looking back from its end: the byte before a name
// in code (a dot, a bracket) ends the look at once, where the expression
// would read a minified bundle's line from its start.
func bareLeadChars(lead string) bool {
	for i := len(lead) - 1; i >= 0; i-- {
		if strings.IndexByte(" \t0123456789:+-exoprt\"'", lead[i]) < 0 {
			return false
		}
	}
	return true
}

// identByte reports whether c, in lower case, may be part of a name such as
// db.password, X-Api-Key or client_secret.
func identByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// eachLine calls fn with each line of text in the windows where matches
// may start, and its offset.
func eachLine(text string, win []window, fn func(off int, line string)) {
	for _, w := range win {
		for off := w.start; off < w.keep; {
			end := strings.IndexByte(text[off:w.keep], '\n')
			if end < 0 {
				end = w.keep - off
			}
			fn(off, text[off:off+end])
			off += end + 1
		}
	}
}

// placeholders are words of values that stand for a secret rather than
// being one.
var placeholders = []string{"example", "changeme", "change_me", "change-me", "placeholder", "dummy",
	"redacted", "your_", "your-", "xxxx", "****", "...", "<", ">", "[secret:", "://"}

// secretValue reports whether an assigned value looks like a secret: six
// characters or more, no spaces, not an identifier, a reference (${VAR},
// {{ .x }}, %s), a placeholder or, when not quoted, code; and random
// enough.
func secretValue(v string, quoted bool) bool {
	if len(v) < 6 || strings.ContainsAny(v, " \t") || strings.ContainsAny(v[:1], "$%{@!&*") {
		return false
	}
	if !quoted && strings.ContainsAny(v, "()[]{};,") {
		return false
	}
	if strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.-") == "" {
		return false // a name or a reference, such as config.Password
	}
	l := strings.ToLower(v)
	for _, p := range placeholders {
		if strings.Contains(l, p) {
			return false
		}
	}
	return entropy(v) >= 2.5
}

// urlCred is scheme://user:password@host; the password is the secret.
var urlCred = lazyRE(`(?i)\b[a-z][a-z0-9+.-]{1,30}://([^\s:/?#@"'` + "`" + `<>\[\]{}\\]{0,100}):([^\s/?#@"'` + "`" + `<>\\]{1,200})@[a-z0-9\[]`)

// weakPasswords are passwords in URLs that are documentation, not secrets.
var weakPasswords = map[string]bool{"password": true, "pass": true, "passwd": true, "pwd": true, "secret": true,
	"changeme": true, "x": true, "xx": true, "xxx": true, "token": true}

// urlCredentials finds passwords in URLs.
func urlCredentials(t *target, _ *rule, win []window) [][2]int {
	var out [][2]int
	eachLine(t.text, win, func(off int, line string) {
		if !credentialsFollow(line) {
			return
		}
		for _, m := range urlCred().FindAllStringSubmatchIndex(line, -1) {
			user, pw := line[m[2]:m[3]], line[m[4]:m[5]]
			l := strings.ToLower(pw)
			if len(pw) < 3 || pw == user || weakPasswords[l] || strings.Trim(pw, "*x.") == "" ||
				strings.ContainsAny(pw[:1], "$%{<") || strings.Contains(l, "example") || strings.Contains(l, "[secret:") {
				continue
			}
			out = append(out, [2]int{off + m[4], off + m[5]})
		}
	})
	return out
}

// credentialsFollow reports whether a "://" in line is followed as urlCred
// needs: a user name, ":", a password, "@". Most URLs have none, and
// urlCred, which cannot start at a literal, costs far more than this look.
func credentialsFollow(line string) bool {
	for rest := line; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return false
		}
		rest = rest[i+3:]
		j := 0
		for j < len(rest) && j <= 100 && strings.IndexByte(urlUserStop, rest[j]) < 0 {
			j++
		}
		if j >= len(rest) || rest[j] != ':' {
			continue
		}
		k := j + 1
		for k < len(rest) && k-j <= 201 && strings.IndexByte(urlPasswordStop, rest[k]) < 0 {
			k++
		}
		if k < len(rest) && rest[k] == '@' && k > j+1 {
			return true
		}
	}
}

// The bytes that end a URL's user name and password, as urlCred has them
// (white space included).
const (
	urlUserStop     = " \t\n\r\f:/?#@\"'`<>[]{}\\"
	urlPasswordStop = " \t\n\r\f/?#@\"'`<>\\"
)

var (
	keyHeader = lazyRE(`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)
	// escapedBody is the rest of a one-line key, as in JSON: base64 and
	// escaped line breaks.
	escapedBody = lazyRE(`^(?:[A-Za-z0-9+/=]|\\[nr])+`)
	pemHeader   = lazyRE(`^(?:Proc-Type|DEK-Info|Comment): `)
)

// openKeyBlocks finds private keys from their BEGIN line through the lines
// of base64 after it, for blocks whose END line is missing: a page of a
// file can end inside a key. (Blocks with their END line are gitleaks';
// where both find one, the two make one match.)
func openKeyBlocks(t *target, _ *rule, _ []window) [][2]int {
	text := t.text
	var out [][2]int
	for _, h := range keyHeader().FindAllStringIndex(text, -1) {
		end := h[1]
		if m := escapedBody().FindStringIndex(text[end:]); m != nil {
			end += m[1]
		}
		for end < len(text) && text[end] == '\r' {
			end++
		}
		// Encrypted keys have header lines and a blank line before the
		// base64; the body ends at its first short line.
		body, headers := false, false
		for end < len(text) && text[end] == '\n' {
			next := strings.IndexByte(text[end+1:], '\n')
			if next < 0 {
				next = len(text) - end - 1
			}
			rest := layout(strings.TrimSuffix(text[end+1:end+1+next], "\r"))
			take, last := false, false
			switch {
			case !body && pemHeader().MatchString(rest):
				take, headers = true, true
			case !body && headers && rest == "":
				take = true
			case isBase64(rest) && (body || len(rest) >= 16):
				// Body lines are 64 characters (70 in OpenSSH keys);
				// a shorter one is the last.
				take, body, last = true, true, len(rest) < 60
			}
			if !take {
				break
			}
			end += 1 + next
			if last {
				break
			}
		}
		if body || end > h[1] {
			out = append(out, [2]int{h[0], end})
		}
	}
	return out
}

// keyLines finds runs of three or more lines of 60 to 76 base64 characters
// (PEM bodies have 64 a line, OpenSSH keys 70): a page of a key file that
// starts after its header.
func keyLines(t *target, _ *rule, _ []window) [][2]int {
	text := t.text
	var out [][2]int
	runStart, runEnd, n := -1, -1, 0
	flush := func() {
		if n >= 3 {
			out = append(out, [2]int{runStart, runEnd})
		}
		runStart, n = -1, 0
	}
	for off := 0; off < len(text); {
		nl := strings.IndexByte(text[off:], '\n')
		if nl < 0 {
			nl = len(text) - off
		}
		line := strings.TrimSuffix(text[off:off+nl], "\r")
		rest := layout(line)
		if l := len(rest); l >= 60 && l <= 76 && isBase64(rest) {
			if runStart < 0 {
				runStart = off + len(line) - l
			}
			runEnd = off + len(line)
			n++
		} else {
			flush()
		}
		off += nl + 1
	}
	flush()
	return out
}

// layout strips what lays a line out rather than being its content:
// indentation, read_file_hunk's line number, a diff's marker.
func layout(line string) string {
	line = strings.TrimLeft(line, " \t")
	line = line[gutterLen(line):]
	if strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-") {
		if rest := line[1:]; rest == "" || !isBase64(line) {
			line = rest
		}
	}
	return strings.TrimSpace(line)
}

func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return s != ""
}
