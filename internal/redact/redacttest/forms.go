package redacttest

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

// Form is one way a secret is written in text that leaves the process: a
// line of a question, a note in the change, a finding's body.
type Form struct {
	// Text is the line, holding Secret once or more.
	Text, Secret string
}

// The secrets of the forms, assembled here so that no file of the
// repository holds one whole (push protection reads files, not programs).
var (
	password  = "Sup3rS3cret" + "Passw0rd!xQ7"
	password2 = "hT9-kq2" + "Lw0!vZ"
	token     = "q8Xv2Lm" + "Pz7RtY4wKc9NbD3s"
	awsSecret = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzQ8aBcDeFg"
	ghToken   = "ghp_" + "Ua8wPq3ZrT6yN1mK4xC7" + "vB0sD9fG2hJ5lQ8e"
	awsKeyID  = "AKIA" + "QX7N2KD5" + "M3RZ4TWY"
	slack     = "xoxb-" + "2345678901-2345678901234-" + "Ab3De5Gh7Jk9Mn2Pq4St6Vw8"
	stripe    = "sk_live_" + "51Hx8QmT2vR9kLp" + "W4zN6cY3bF7dJ0sA"
)

// Forms returns the forms the redactor must hide wherever the value
// ends: at the end of its line, before more words, in quotes, brackets
// and sentences, in the formats of configuration, code and the shell.
func Forms() []Form {
	pw, pw2, tok := password, password2, token
	list := []Form{
		{"DB_PASSWORD=" + pw + " ok?", pw},
		{"the .env says DB_PASSWORD=" + pw + ", is that ok?", pw},
		{"DB_PASSWORD=" + pw + ".", pw},
		{"(DB_PASSWORD=" + pw + ")", pw},
		{`DB_PASSWORD="` + pw + `", ok?`, pw},
		{"AWS_SECRET_ACCESS_KEY=" + awsSecret + ", ok?", awsSecret},
		{"[DB_PASSWORD=" + pw + "]", pw},
		{"{DB_PASSWORD=" + pw + "}", pw},
		{"DB_PASSWORD=" + pw + "; then restart", pw},
		{"DB_PASSWORD=" + pw2 + "!", pw2},
		{"is DB_PASSWORD=" + pw + "?", pw},
		{"`DB_PASSWORD=" + pw + "`", pw},
		{"'DB_PASSWORD=" + pw + "'", pw},
		{`"DB_PASSWORD=` + pw + `"`, pw},
		{"db.password: " + pw + " (see the vault)", pw},
		{"password: " + pw + ", user: admin", pw},
		{"export API_TOKEN=" + tok + " && ./deploy", tok},
		{"PGPASSWORD=" + pw + " psql -h db -U app", pw},
		{"Server=db;Password=" + pw2 + ";Database=app", pw2},
		{`curl "https://api.example.com/v1?access_token=` + tok + `&page=2"`, tok},
		{"./migrate --password=" + pw + " --user=app", pw},
		{"client_secret: " + tok + " (prod)", tok},
		{"SECRET_KEY = " + pw + " # prod", pw},
		{"api_key=" + tok + ", api_secret=" + pw2, tok},
		{"api_key=" + tok + ", api_secret=" + pw2, pw2},
		{"password=" + pw + "\t# the old one", pw},
		{`{"password": "` + pw + `", "user": "app"}`, pw},
		{`password := "` + pw + `" // rotated`, pw},
		{"auth_token='" + tok + "' and more", tok},
		{"mysql://root:" + pw2 + "@db:3306/app is the url", pw2},
		{"redis://:" + pw2 + "@cache:6379, ok?", pw2},
		{"the token is " + ghToken + ".", ghToken},
		{"(" + ghToken + ")", ghToken},
		{ghToken + ", is it still valid?", ghToken},
		{"key id " + awsKeyID + ", region eu-west-1", awsKeyID},
		{"slack (" + slack + ")", slack},
		{"stripe key " + stripe + ".", stripe},
		{"Authorization: Bearer " + ghToken + " works", ghToken},
		{"set SECRET=" + pw + " then restart", pw},
		{"DB_PASS=" + pw + ",", pw},
		{"the key is API_KEY=" + tok + ".", tok},
		{"token: " + tok + " ok?", tok},
		{`token: "` + tok + `" ok?`, tok},
		{"DB_PASSWORD=" + pw + "… right?", pw},
	}
	return append(list, providerForms()...)
}

// providerForms are the keys of the model providers review talks to, the
// webhooks and headers kept beside them, and values on the line after
// their name, each written as a user writes it. The values are random, of
// each provider's alphabet and length, made here from a fixed seed.
func providerForms() []Form {
	rng := rand.New(rand.NewPCG(47, 2))
	r := func(alphabet string, n int) string { return random(rng, alphabet, n) }
	urlSafe := alnum + "_-"
	groq := "gsk_" + r(alnum, 52)
	xai := "xai-" + r(alnum, 80)
	openrouter := "sk-or-v1-" + r(hex, 64)
	deepseek := "sk-" + r(hex, 32)
	moonshot := "sk-" + r(alnum, 48)
	together := "tgp_v1_" + r(urlSafe, 43)
	fireworks := "fw_" + r(alnum, 24)
	mistral := r(alnum, 32)
	anthropic := "sk-ant-oat01-" + r(urlSafe, 95)
	openai := "sk-proj-" + r(urlSafe, 120)
	azure := r(alnum, 52) + "JQQJ99" + r(alnum, 1) + "ACOG" + r(alnum, 21)
	google := "GOCSPX-" + r(urlSafe, 28)
	org := base64.RawStdEncoding.EncodeToString([]byte(`{"iat":17` + r("0123456789", 8) + `.` + r("0123456789", 6) +
		`,"url":"https://sentry.io","region_url":"https://de.sentry.io","org":"acme-` + r("abcdefghijklmnopqrstuvwxyz", 6) + `"}`))
	sentry := "sntrys_" + org + "_" + r(alnum, 43)
	sentryOld := "sntrys_" + r(b64, 140) + "_" + r(alnum, 43)
	discord := "https://discord.com/api/webhooks/1" + r("0123456789", 18) + "/" + r(urlSafe, 68)
	slack := "https://hooks.slack.com/services/T" + r("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/B" +
		r("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/" + r(alnum, 24)
	guid := func() string {
		return r(hex, 8) + "-" + r(hex, 4) + "-" + r(hex, 4) + "-" + r(hex, 4) + "-" + r(hex, 12)
	}
	teams := "https://acme.webhook.office.com/webhookb2/" + guid() + "@" + guid() + "/IncomingWebhook/" + r(hex, 32) + "/" +
		guid() + "/V2" + r(urlSafe, 40)
	workflow := "https://prod-27.westeurope.logic.azure.com:443/workflows/" + r(hex, 32) +
		"/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=" + r(urlSafe, 43)
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + r(alnum, 18)))
	bearer := r(alnum, 40)
	block, folded, plain, cont := r(alnum+"!#%", 20), r(alnum, 24), r(alnum, 22), r(alnum, 30)
	return []Form{
		{`const K = "` + groq + `"`, groq},
		{`const K = "` + xai + `"`, xai},
		{`const K = "` + openrouter + `"`, openrouter},
		{`const DeepSeek = "` + deepseek + `"`, deepseek},
		{`const K = "` + moonshot + `"`, moonshot},
		{`const K = "` + together + `"`, together},
		{`const K = "` + fireworks + `"`, fireworks},
		{`mistral: ` + mistral, mistral},
		{`const K = "` + anthropic + `"`, anthropic},
		{`const K = "` + openai + `"`, openai},
		{`const K = "` + azure + `"`, azure},
		{`const K = "` + google + `"`, google},
		{`const K = "` + sentry + `"`, sentry},
		{`const K = "` + sentryOld + `"`, sentryOld},
		{`const K = "` + discord + `"`, discord},
		{`const K = "` + slack + `"`, slack},
		{`const K = "` + teams + `"`, teams},
		{`const K = "` + workflow + `"`, workflow},
		{"Authorization: Basic " + basic, basic},
		{`req.Header.Set("Authorization", "Bearer ` + bearer + `")`, bearer},
		{"password: |\n  " + block, block},
		{"db:\n  client_secret: >-\n    " + folded + "\n  user: app", folded},
		{"db:\n  password:\n    " + plain + "\n  user: app", plain},
		{"export API_TOKEN=\\\n  " + cont, cont},
	}
}

// Secrets returns the distinct secrets of the forms, one a line.
func Secrets() string {
	seen := map[string]bool{}
	var b strings.Builder
	for _, f := range Forms() {
		if !seen[f.Secret] {
			seen[f.Secret] = true
			b.WriteString(f.Secret + "\n")
		}
	}
	return b.String()
}
