// Command server is the test MCP server over stdio (see package mcptest). Flags: -name, -markers
// (a directory for marker files), -extra (synthetic tools), -fail (exit at once with a message on
// stderr), -hang (never answer initialize).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

func main() {
	name := flag.String("name", "testserver", "server name")
	markers := flag.String("markers", "", "directory for marker files")
	extra := flag.Int("extra", 0, "synthetic tools to add")
	fail := flag.Bool("fail", false, "exit at once with an error on stderr")
	hang := flag.Bool("hang", false, "read stdin and never answer")
	flag.Parse()
	if *fail {
		fmt.Fprintln(os.Stderr, "fatal: the test server was told to fail")
		os.Exit(3)
	}
	if *hang {
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				os.Exit(0)
			}
		}
	}
	if v := os.Getenv("TEST_SERVER_REQUIRE"); v != "" && os.Getenv(v) == "" {
		fmt.Fprintf(os.Stderr, "missing %s\n", v)
		os.Exit(4)
	}
	s := mcptest.New(mcptest.Options{Name: *name, MarkerDir: *markers, ExtraTools: *extra, Instructions: "Test tools for pi-go.\nSecond line."})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
