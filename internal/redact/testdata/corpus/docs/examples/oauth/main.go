// Command oauth shows the authorization code flow against the example
// provider. Register an application first and put its ID and secret below.
package main

import (
	"fmt"

	"golang.org/x/oauth2"
)

func main() {
	conf := &oauth2.Config{
		ClientID:     "1234567890-abcdefg.apps.example.com",
		ClientSecret: "Xk29fLq81vNa0QzR7yWc",
		Scopes:       []string{"profile"},
		Endpoint: oauth2.Endpoint{
			AuthURL:  "https://provider.example.com/o/oauth2/auth",
			TokenURL: "https://provider.example.com/token",
		},
	}
	fmt.Println(conf.AuthCodeURL("state"))
}
