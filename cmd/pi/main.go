// Command pi is the pi-go coding agent.
package main

import (
	"fmt"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--version" || os.Args[1] == "-v") {
		fmt.Println(version)
		return
	}
	fmt.Fprintln(os.Stderr, "pi-go: the command line is not wired yet")
	os.Exit(1)
}
