package redact

import (
	b64 "encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ourRules are rules of this package in gitleaks' form, for the keys of
// the model providers review talks to, the webhooks and headers people
// keep beside them, that gitleaks' default configuration (v8.30.1, and
// its main branch of July 2026) has no rule for, or only a narrower one.
// They run as gitleaks' rules run (keywords, entropy, allowlists), after
// them: where both find the same text, gitleaks' rule names it. An ID
// gitleaks also has (openai-api-key, sentry-org-token,
// microsoft-teams-webhook) widens that rule to what it misses.
// docs/secrets.md lists them and says why each is here.
//
// Expressions are built as gitleaks' generator builds its own:
// uniqueToken for a token with a prefix of its own, named for a value
// that only a name before it says is a key.
var ourRules = []genRule{
	{ID: "groq-api-key", Desc: "A Groq API key (gsk_).", Entropy: 3,
		Regex: uniqueToken(`gsk_[a-zA-Z0-9]{52}`), Keywords: []string{"gsk_"}},
	{ID: "xai-api-key", Desc: "An xAI (Grok) API key (xai-).", Entropy: 3,
		Regex: uniqueToken(`xai-[a-zA-Z0-9]{80}`), Keywords: []string{"xai-"}},
	{ID: "openrouter-api-key", Desc: "An OpenRouter API key (sk-or-v1-).", Entropy: 3,
		Regex: uniqueToken(`sk-or-v1-[a-f0-9]{64}`), Keywords: []string{"sk-or-v1-"}},
	// gitleaks' rule wants the T3BlbkFJ marker of today's keys.
	{ID: "openai-api-key", Desc: "An OpenAI project, service account or admin key (sk-proj-, sk-svcacct-, sk-admin-).", Entropy: 3.5,
		Regex: uniqueToken(`sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,250}`), Keywords: []string{"sk-proj-", "sk-svcacct-", "sk-admin-"}},
	// gitleaks' rules know API (api03) and admin (admin01) keys only.
	{ID: "anthropic-oauth-token", Desc: "An Anthropic OAuth access or refresh token or session key (sk-ant-oat, -ort, -sid).", Entropy: 3.5,
		Regex: uniqueToken(`sk-ant-(?:oat|ort|sid)\d{2}-[A-Za-z0-9_-]{80,120}`), Keywords: []string{"sk-ant-oat", "sk-ant-ort", "sk-ant-sid"}},
	{ID: "deepseek-api-key", Desc: "A DeepSeek API key (sk- and 32 hex digits) assigned to a name that says DeepSeek.", Entropy: 3,
		Regex: named(`deepseek`, `sk-[a-f0-9]{32}`), Keywords: []string{"deepseek"}},
	{ID: "moonshot-api-key", Desc: "A Moonshot (Kimi) API key (sk- and 48 characters) assigned to a name that says Moonshot or Kimi.", Entropy: 3.5,
		Regex: named(`moonshot|kimi`, `sk-[a-z0-9]{48}`), Keywords: []string{"moonshot", "kimi"}},
	// The shape of the keys of most OpenAI-compatible servers (DeepSeek,
	// Moonshot, Qwen, gateways): sk- and 32 to 64 letters and digits, on
	// its own. No checksum says it is one, so it is a low-confidence match.
	{ID: "openai-compatible-api-key", Desc: "A key of an OpenAI-compatible server (sk- and 32 to 64 letters and digits).", Entropy: 3.5,
		Regex: uniqueToken(`sk-[a-zA-Z0-9]{32,64}`), Keywords: []string{"sk-"}},
	{ID: "mistral-api-key", Desc: "A Mistral API key assigned to a name that says Mistral.", Entropy: 3,
		Regex: named(`mistral`, `[a-z0-9]{32}`), Keywords: []string{"mistral"}},
	{ID: "together-api-key", Desc: "A Together AI API key (tgp_v1_).", Entropy: 3,
		Regex: uniqueToken(`tgp_v1_[A-Za-z0-9_-]{43}`), Keywords: []string{"tgp_v1_"}},
	{ID: "together-api-key", Desc: "A Together AI API key assigned to a name that says Together.", Entropy: 3,
		Regex: named(`together`, `[a-f0-9]{64}`), Keywords: []string{"together"}},
	// fw_ starts names in firmware code too: an entropy of 4 leaves
	// fw_UpdateFirmwareVersion and its kin alone.
	{ID: "fireworks-api-key", Desc: "A Fireworks AI API key (fw_).", Entropy: 4,
		Regex: uniqueToken(`fw_[A-Za-z0-9]{24}`), Keywords: []string{"fw_"}},
	// Microsoft's common annotated key format (84 characters, JQQJ9 at
	// 52), which Azure AI services and Azure OpenAI keys now have.
	{ID: "azure-ai-services-key", Desc: "An Azure AI services or Azure OpenAI key in Microsoft's annotated format (JQQJ9).", Entropy: 3.5,
		Regex:    uniqueToken(`[A-Za-z0-9]{52}JQQJ9[9DH][A-Za-z0-9][A-L][A-Za-z0-9]{16}[A-Za-z][A-Za-z0-9]{7}(?:[A-Za-z0-9]{2}==)?`),
		Keywords: []string{"jqqj9"}},
	{ID: "azure-openai-api-key", Desc: "An Azure OpenAI key (32 hex digits) assigned to a name that says Azure.", Entropy: 3,
		Regex: named(`azure`, `[a-f0-9]{32}`), Keywords: []string{"azure"}},
	{ID: "gcp-oauth-client-secret", Desc: "A Google OAuth client secret (GOCSPX-).", Entropy: 3,
		Regex: uniqueToken(`GOCSPX-[A-Za-z0-9_-]{28}`), Keywords: []string{"gocspx-"}},
	{ID: "gcp-oauth-access-token", Desc: "A Google OAuth access token (ya29.).", Entropy: 3.5,
		Regex: uniqueToken(`ya29\.[A-Za-z0-9_-]{40,400}`), Keywords: []string{"ya29."}},
	// gitleaks' Sentry rule wants the token's JSON in one order.
	{ID: "sentry-org-token", Desc: "A Sentry organization token (sntrys_).", Entropy: 4,
		Regex: `\b(sntrys_[A-Za-z0-9+/=_-]{60,1000})(?:[^A-Za-z0-9+/=_-]|\z)`, Keywords: []string{"sntrys_"}},
	{ID: "discord-webhook-url", Desc: "A Discord webhook URL, which lets anyone post to its channel.",
		Regex:    `https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v\d{1,2}/)?webhooks/\d{17,20}/[A-Za-z0-9_-]{60,80}`,
		Keywords: []string{"discord.com/api/", "discordapp.com/api/"}},
	// gitleaks' rule reads lower case only and stops before the last
	// part of today's URLs.
	{ID: "microsoft-teams-webhook", Desc: "A Microsoft Teams incoming webhook URL.",
		Regex:    `(?i)https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[a-f0-9-]{36}@[a-f0-9-]{36}/IncomingWebhook/[a-f0-9]{32}/[a-f0-9-]{36}(?:/[A-Za-z0-9_-]{20,200})?`,
		Keywords: []string{"webhookb2"}},
	// Teams' workflows (Power Automate) post through a signed URL.
	{ID: "teams-workflow-webhook", Desc: "A Teams workflow (Power Automate, Logic Apps) webhook URL with its signature.",
		Regex:    `(?i)https://[a-z0-9.-]{1,100}\.(?:logic\.azure\.com|api\.powerplatform\.com)(?::\d{1,5})?/[\w./-]{0,200}workflows/[a-f0-9]{32}/triggers/[^\s"'<>]{0,300}?[?&]sig=[A-Za-z0-9_%-]{20,100}`,
		Keywords: []string{"logic.azure.com", "api.powerplatform.com"}},
	// gitleaks finds an Authorization header on a curl command line only.
	// A Basic one is a secret when it decodes to a user and a password
	// (see basicCredentials).
	{ID: "authorization-header", Desc: "Credentials in an Authorization header (Basic, Bearer or Token).", Entropy: 2,
		Regex:    basicHeader,
		Keywords: []string{"authorization"}},
	{ID: "authorization-header", Desc: "Credentials in an Authorization header (Basic, Bearer or Token).", Entropy: 3,
		Regex:    authorizationLead + `(?:bearer|token)[ \t]+([a-z0-9._~+/-]{16,}={0,2})` + headerEnd,
		Keywords: []string{"authorization"},
		Allow:    []genAllow{{StopWords: []string{"changeme", "example", "placeholder", "redacted", "token", "xxxx", "your"}}}},
}

// An Authorization header's name (Proxy-Authorization's too) and its
// operator in HTTP, code and configuration (Authorization: ,
// "Authorization", , authorization=), and where its value ends. The
// expression starts with its keyword, so that on a minified bundle's line
// it is matched at the keyword only (see rule.anchored).
const (
	authorizationLead = `(?i)\bauthorization["']?[ \t]*(?::|=>|=|,)[ \t]*["'\x60]?[ \t]*`
	headerEnd         = `(?:[\x60'"\s;,)\]}>]|\\[nr]|$)`
	basicHeader       = authorizationLead + `basic[ \t]+([a-z0-9+/]{8,}={0,2})` + headerEnd
)

// ourChecks are what a secret of a rule of ourRules must also pass, by
// the rule's expression.
var ourChecks = map[string]func(secret string) bool{
	basicHeader: basicCredentials,
}

// basicCredentials reports whether the value of a Basic Authorization
// header is user:password in base64 with a password (or, without one, a
// user name) that is not a placeholder: "CLIENT_ID:CLIENT_SECRET" and
// "user:password" are examples.
func basicCredentials(v string) bool {
	b, err := b64.StdEncoding.DecodeString(v)
	if err != nil {
		if b, err = b64.RawStdEncoding.DecodeString(strings.TrimRight(v, "=")); err != nil {
			return false
		}
	}
	s := string(b)
	user, pass, ok := strings.Cut(s, ":")
	if !ok || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return false
	}
	cred := pass
	if cred == "" {
		cred = user
	}
	if len(cred) < 3 || weakPasswords[strings.ToLower(cred)] || strings.Trim(cred, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-.0123456789") == "" {
		return false
	}
	l := strings.ToLower(cred)
	for _, p := range placeholders {
		if strings.Contains(l, p) {
			return false
		}
	}
	return true
}

// ourConfidence rates the rules of ourRules that confidenceOf, which
// rates gitleaks' rules by their form, would rate otherwise: a value of no
// format of its own is low, and a key of a provider's own format named
// for its provider is high.
var ourConfidence = map[string]Confidence{
	"openai-compatible-api-key": Low,
	"authorization-header":      Low,
	"deepseek-api-key":          High,
	"moonshot-api-key":          High,
}

// uniqueToken is gitleaks' GenerateUniqueTokenRegex: a token with a
// prefix of its own, from a word boundary to where gitleaks' tokens end.
func uniqueToken(token string) string {
	return `\b(` + token + `)` + tokenEnd + `)`
}

// named is gitleaks' GenerateSemiGenericRegex: a value after a name
// holding one of names (alternatives), as name = value, name: value and
// their kin write it.
func named(names, value string) string {
	return assignLead + `(?:` + names + `)` + assignTemplate + `[\x60'"\s=]{0,5}(` + value + `)` + tokenEnd + `)`
}
