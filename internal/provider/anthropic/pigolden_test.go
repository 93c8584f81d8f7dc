package anthropic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// piRun is one run recorded from pi 1.6.0 by scripts/interop/anthropic: its session and the request
// bodies and headers it sent.
type piRun struct {
	model    provider.Model
	level    provider.ThinkingLevel
	messages []provider.Message // every message of the session, system messages included
}

func loadPIRun(t *testing.T, dir string) *piRun {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &piRun{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e struct {
			Type          string          `json:"type"`
			Provider      string          `json:"provider"`
			ModelID       string          `json:"modelId"`
			ThinkingLevel string          `json:"thinkingLevel"`
			Message       json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case "model_change":
			m, ok := provider.BuiltinModel(e.Provider, e.ModelID)
			if !ok {
				t.Fatalf("model %s/%s is not in the catalogue", e.Provider, e.ModelID)
			}
			m.BaseURL = "http://127.0.0.1:1"
			r.model = m
		case "thinking_level_change":
			r.level = provider.ThinkingLevel(e.ThinkingLevel)
		case "message":
			msg, err := provider.UnmarshalMessage(e.Message)
			if err != nil {
				t.Fatal(err)
			}
			r.messages = append(r.messages, msg)
		}
	}
	return r
}

// request is the request pi made before its n-th answer (1-based).
func (r *piRun) request(n int) *provider.Request {
	var llm []provider.Message
	answers := 0
	var upTo []provider.Message
	for _, m := range r.messages {
		if _, ok := m.(*provider.AssistantMessage); ok {
			answers++
			if answers == n {
				break
			}
		}
		upTo = append(upTo, m)
		if m.Role() != provider.RoleSystem {
			llm = append(llm, m)
		}
	}
	m := r.model
	level := provider.ClampThinkingLevel(&m, r.level)
	if level == provider.ThinkingOff {
		level = ""
	}
	return &provider.Request{Model: &m, SystemPrompt: provider.CurrentSystemPrompt(upTo),
		Tools: provider.CurrentTools(upTo), Messages: llm, Options: provider.StreamOptions{Reasoning: level}}
}

func canonical(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return v
}

// TestRequestBodiesMatchPI builds pi-go's request for each request pi 1.6.0 sent in the recorded runs
// (the same conversation, read back from pi's own session file) and compares body and beta header.
func TestRequestBodiesMatchPI(t *testing.T) {
	dirs, _ := filepath.Glob("../../../testdata/pi16/anthropic/*")
	if len(dirs) == 0 {
		t.Fatal("no recorded runs")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			run := loadPIRun(t, dir)
			bodies, _ := filepath.Glob(filepath.Join(dir, "requests", "*.json"))
			for i, path := range bodies {
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				built, err := buildRequest(run.request(i+1), CacheShort)
				if err != nil {
					t.Fatal(err)
				}
				if got, exp := canonical(t, built.body), canonical(t, want); !reflect.DeepEqual(got, exp) {
					var g bytes.Buffer
					_ = json.Indent(&g, built.body, "", "  ")
					t.Errorf("request %d differs from pi's.\npi-go:\n%s\npi:\n%s", i+1, g.String(), want)
				}
				// Key order too: the cached prefix is byte-exact on the server.
				var compact bytes.Buffer
				_ = json.Compact(&compact, want)
				if !bytes.Equal(built.body, compact.Bytes()) && !t.Failed() {
					t.Errorf("request %d: same JSON, different bytes:\npi-go %s\npi    %s", i+1, built.body, compact.Bytes())
				}
				hdr, _ := os.ReadFile(strings.TrimSuffix(path, ".json") + ".headers")
				wantBeta := ""
				for _, line := range strings.Split(string(hdr), "\n") {
					if v, ok := strings.CutPrefix(line, "anthropic-beta: "); ok {
						wantBeta = v
					}
				}
				if got := strings.Join(built.betas, ","); got != wantBeta {
					t.Errorf("request %d: anthropic-beta %q, pi sent %q", i+1, got, wantBeta)
				}
			}
		})
	}
}

// TestPISessionMessagesRoundTrip: every message pi 1.6.0 wrote in the recorded Claude sessions
// (thinking signatures, redacted thinking, usage with cacheWrite1h, providerThinkingLevel) reads into
// pi-go's types and writes back byte for byte, so pi-go keeps pi's session files as pi wrote them.
func TestPISessionMessagesRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/pi16/anthropic/*/session.jsonl")
	n := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e struct {
				Type    string          `json:"type"`
				Message json.RawMessage `json:"message"`
			}
			if json.Unmarshal([]byte(line), &e) != nil || e.Type != "message" {
				continue
			}
			var dec provider.MessageDecoder
			for _, decode := range []func([]byte) (provider.Message, error){provider.UnmarshalMessage, dec.Decode} {
				msg, err := decode(e.Message)
				if err != nil {
					t.Fatal(err)
				}
				out, err := msg.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, e.Message) {
					t.Errorf("%s: message does not round-trip:\npi    %s\npi-go %s", path, e.Message, out)
				}
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d messages", n)
	}
}
