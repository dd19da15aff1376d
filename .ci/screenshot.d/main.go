// Command screenshot.d serves a scripted model for .ci/screenshot: it
// prints the server's URL, then answers chat completions with the script
// named as its argument until it is killed.
package main

import (
	"fmt"
	"os"
	"os/signal"

	"github.com/reviewdev/review/review/reviewtest"
)

func main() {
	s, err := reviewtest.LoadScript(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := reviewtest.NewServer(s, "")
	defer srv.Close()
	fmt.Println(srv.URL)
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, os.Kill)
	<-c
}
