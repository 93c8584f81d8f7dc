package main

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// A 5xx before the answer begins is sent again by the provider itself, as pi's OpenAI SDK does: the
// run succeeds with no retry notice and no error message in the session file.
func TestServerErrorIsRetriedBeforeTheAgentSeesIt(t *testing.T) {
	p := newProject(t)
	busy := openaitest.ErrorResponse(503, "The server is overloaded")
	busy.Header = http.Header{"Retry-After-Ms": {"1"}}
	p.server.Enqueue(busy, openaitest.TextReply("test-model", "Recovered."))
	r := p.run("", append(p.baseArgs(), "-p", "hi")...)
	if r.code != 0 || r.stdout != "Recovered.\n" || r.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := len(p.server.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	matches, _ := os.ReadDir(p.agentDir + "/sessions")
	for _, d := range matches {
		files, _ := os.ReadDir(p.agentDir + "/sessions/" + d.Name())
		for _, f := range files {
			data, err := os.ReadFile(p.agentDir + "/sessions/" + d.Name() + "/" + f.Name())
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "overloaded") {
				t.Errorf("the retried error reached the session file:\n%s", data)
			}
		}
	}
}
