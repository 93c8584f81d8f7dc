package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/anthropictest"
	"github.com/pi-go/pi-go/internal/provider/google/googletest"
	"github.com/pi-go/pi-go/internal/provider/responses/responsestest"
)

// apiFamilies is one scripted server on 127.0.0.1 that answers each of the four APIs pi-go speaks
// with a short text, recording every request body by API.
type apiFamilies struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies map[string][][]byte
}

func startAPIFamilies(t *testing.T) *apiFamilies {
	f := &apiFamilies{bodies: map[string][][]byte{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var api, answer string
		switch {
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			api = "openai-completions"
			answer = `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"completions ok"},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				"data: [DONE]\n\n"
		case strings.HasSuffix(r.URL.Path, "/responses"):
			api = "openai-responses"
			answer = responsestest.NewStream("resp_1", "m").Message("msg_1", "", "responses ok").Completed(responsestest.Usage{Input: 10, Output: 2})
		case strings.HasSuffix(r.URL.Path, "/messages"):
			api = "anthropic-messages"
			answer = anthropictest.SSE(anthropictest.Answer{ID: "msg_1", Model: "m", Blocks: []anthropictest.Block{anthropictest.Text("anthropic ok")},
				Usage: &anthropictest.Usage{Input: 10, Output: 2}}.Events()...)
		case strings.Contains(r.URL.Path, ":streamGenerateContent"):
			api = "google-generative-ai"
			answer = googletest.NewStream("g1", "m", 10).Finish("STOP", googletest.Usage{Candidates: 2}, googletest.Text("google ok", ""))
		default:
			http.NotFound(w, r)
			return
		}
		f.mu.Lock()
		f.bodies[api] = append(f.bodies[api], body)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, answer)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *apiFamilies) requests(api string) [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[api]
}

// modelsJSON is a provider per API, each at the scripted server (model "m").
func (f *apiFamilies) modelsJSON() string {
	provider := func(name, api, base string) string {
		return fmt.Sprintf(`%q:{"baseUrl":%q,"api":%q,"apiKey":"key","models":[{"id":"m"}]}`, name, base, api)
	}
	return `{"providers":{` + strings.Join([]string{
		provider("fam-completions", "openai-completions", f.srv.URL+"/v1"),
		provider("fam-responses", "openai-responses", f.srv.URL+"/v1"),
		provider("fam-anthropic", "anthropic-messages", f.srv.URL),
		provider("fam-google", "google-generative-ai", f.srv.URL+"/v1beta"),
	}, ",") + `}}`
}

// payloadMarker replaces every payload (before_provider_request), shows each response's status
// and content type (after_provider_response), cancels compactions and shows the failure pi reports
// for them (session_compact_failed).
const payloadMarker = `export default function (pi) {
	pi.on("before_provider_request", (event) => ({ ...event.payload, pi_go_marker: "replaced" }));
	pi.on("after_provider_response", (event, ctx) => {
		ctx.ui.notify("response " + event.status + " " + event.headers["content-type"], "info");
	});
	pi.on("session_before_compact", () => ({ cancel: true }));
	pi.on("session_compact_failed", (event, ctx) => {
		ctx.ui.notify("compact failed " + JSON.stringify(event), "info");
	});
}
`

// before_provider_request and after_provider_response with pi 1.6.0's runner, for each of the four
// API families: the server receives the payload the extension returned; pi's provider-payload example
// logs each payload and response as pi does; pi's dynamic-resources example contributes a skill and a
// prompt template (resources_discover); a cancelled compaction raises session_compact_failed.
func TestExtensionProviderHooksForEachAPI(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	fam := startAPIFamilies(t)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(fam.modelsJSON()), 0o644); err != nil {
		t.Fatal(err)
	}
	smallCompactions(t, p) // so that the four short runs have something to compact
	p.write("marker.js", payloadMarker)
	if err := os.MkdirAll(filepath.Join(p.dir, ".pi"), 0o755); err != nil { // provider-payload's log directory
		t.Fatal(err)
	}
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	examples := filepath.Join(pi.pkg, "examples", "extensions")
	// provider-payload first: it logs the payload as built, then the marker replaces it; at the
	// response, its log line is written before the marker's notify.
	s := p.startRPC("--provider", "fam-completions", "--model", "m",
		"-e", filepath.Join(examples, "provider-payload.ts"), "-e", filepath.Join(p.dir, "marker.js"),
		"-e", filepath.Join(examples, "dynamic-resources", "index.ts"))

	s.send(map[string]any{"type": "get_commands", "id": "cmds"})
	cmds := fmt.Sprint(s.expect("get_commands", isResponse("cmds"))["data"])
	for _, want := range []string{"name:skill:dynamic-resources ", "name:dynamic "} {
		if !strings.Contains(cmds, want) {
			t.Errorf("dynamic-resources' %s is not a command: %s", strings.TrimSpace(want), cmds)
		}
	}

	families := []struct{ provider, api, answer string }{
		{"fam-completions", "openai-completions", "completions ok"},
		{"fam-responses", "openai-responses", "responses ok"},
		{"fam-anthropic", "anthropic-messages", "anthropic ok"},
		{"fam-google", "google-generative-ai", "google ok"},
	}
	for i, f := range families {
		id := fmt.Sprint("m", i)
		s.send(map[string]any{"type": "set_model", "id": id, "provider": f.provider, "modelId": "m"})
		if resp := s.expect("set_model "+f.provider, isResponse(id)); resp["success"] != true {
			t.Fatalf("set_model: %v", resp)
		}
		s.send(map[string]any{"type": "prompt", "id": "p" + id, "message": "hello " + f.api})
		s.expectAll(f.api+": the answer and the response's notify", func(m map[string]any) bool {
			return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["message"]), f.answer)
		}, notifyWith("response 200 text/event-stream"), isType("agent_settled"))
		reqs := fam.requests(f.api)
		if len(reqs) != 1 {
			t.Fatalf("%s: %d requests", f.api, len(reqs))
		}
		var body map[string]any
		if err := json.Unmarshal(reqs[0], &body); err != nil || body["pi_go_marker"] != "replaced" {
			t.Errorf("%s: the server got a payload the extension did not return: %s", f.api, reqs[0])
		}
		if !strings.Contains(string(reqs[0]), "hello "+f.api) {
			t.Errorf("%s: the replaced payload lost the prompt: %s", f.api, reqs[0])
		}
	}

	// session_compact_failed through pi's runner: the compaction the marker cancelled.
	s.send(map[string]any{"type": "compact", "id": "c"})
	s.expectAll("the cancelled compaction and its session_compact_failed", isResponse("c"),
		notifyWith(`compact failed {"type":"session_compact_failed","reason":"manual","aborted":true,"willRetry":false,"fromExtension":false}`))

	log, err := os.ReadFile(filepath.Join(p.dir, ".pi", "provider-payload.log"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(log)
	for _, f := range families {
		if !strings.Contains(text, "hello "+f.api) {
			t.Errorf("provider-payload did not log the %s payload:\n%s", f.api, text)
		}
	}
	if n := strings.Count(text, "[200] {"); n != len(families) || !strings.Contains(text, `"content-type":"text/event-stream"`) {
		t.Errorf("provider-payload logged %d responses:\n%s", n, text)
	}
	if strings.Contains(text, "pi_go_marker") {
		t.Errorf("provider-payload, loaded first, saw the later handler's change:\n%s", text)
	}
}
