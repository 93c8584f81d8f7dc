package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// windowServer is a scripted server with a small context window (openaitest.Window): a summary
// request gets a short summary, a prompt that says "read <file>" gets a read call, anything else a
// short answer. Every answer reports its real prompt size as usage. It records what it saw.
type windowServer struct {
	window  int
	noUsage bool // answer without a usage chunk, as some servers do

	mu        sync.Mutex
	overflows int      // requests answered with the overflow error
	largest   int      // the largest prompt answered
	summaries []string // the summary requests' prompts
	sumLimits []int    // the summary requests' max_completion_tokens
	afterSum  []int    // sizes of the requests after the first summary request
	sizes     []int    // sizes of all requests in order, summary requests as -1
}

func startWindowServer(p *project, window int, style openaitest.Overflow) *windowServer {
	return startWindowServerWith(p, &windowServer{window: window}, style)
}

func startWindowServerWith(p *project, ws *windowServer, style openaitest.Overflow) *windowServer {
	w := openaitest.Window{Tokens: ws.window, Server: style, Answer: ws.answer}
	p.server.SetResponder(func(r *openaitest.Request) openaitest.Response {
		resp := w.Respond(r)
		ws.mu.Lock()
		size := openaitest.PromptTokens(r.Body)
		if isSummaryRequest(r.Body) {
			size = -1
		} else if len(ws.summaries) > 0 {
			ws.afterSum = append(ws.afterSum, size)
		}
		ws.sizes = append(ws.sizes, size)
		if resp.Status == 400 {
			ws.overflows++
		}
		ws.mu.Unlock()
		return resp
	})
	return ws
}

func isSummaryRequest(body []byte) bool {
	return strings.Contains(string(body), "You are a context summarization assistant.")
}

func (ws *windowServer) answer(r *openaitest.Request, prompt int) openaitest.Response {
	resp := ws.reply(r, prompt)
	if ws.noUsage && len(resp.Events) > 2 {
		n := len(resp.Events)
		resp.Events = append(resp.Events[:n-2:n-2], resp.Events[n-1]) // drop the usage chunk before [DONE]
	}
	return resp
}

func (ws *windowServer) reply(r *openaitest.Request, prompt int) openaitest.Response {
	var req struct {
		Messages  []map[string]any `json:"messages"`
		MaxTokens int              `json:"max_completion_tokens"`
	}
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return openaitest.ErrorResponse(400, err.Error())
	}
	ws.mu.Lock()
	ws.largest = max(ws.largest, prompt)
	ws.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	text := contentText(last["content"])
	if isSummaryRequest(r.Body) {
		ws.mu.Lock()
		ws.summaries = append(ws.summaries, text)
		ws.sumLimits = append(ws.sumLimits, req.MaxTokens)
		ws.mu.Unlock()
		return openaitest.Reply("small", prompt, "## Goal\nThe summary of the earlier work.")
	}
	if last["role"] == "user" {
		if f, ok := strings.CutPrefix(text, "read "); ok {
			return openaitest.Reply("small", prompt, "", openaitest.ToolCallSpec{
				ID: fmt.Sprintf("call_%d", len(req.Messages)), Name: "read", Arguments: `{"path":"` + f + `"}`})
		}
	}
	return openaitest.Reply("small", prompt, fmt.Sprintf("Answer %d.", len(req.Messages)))
}

func (ws *windowServer) stats() (overflows, largest int, summaries []string, afterSummary []int) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.overflows, ws.largest, append([]string(nil), ws.summaries...), append([]int(nil), ws.afterSum...)
}

// registerWindow writes models.json with the model local/small and its window.
func (p *project) registerWindow(window int) []string {
	p.t.Helper()
	models := fmt.Sprintf(`{"providers":{"local":{"baseUrl":%q,"api":"openai-completions","apiKey":"k",`+
		`"models":[{"id":"small","contextWindow":%d,"maxTokens":1024}]}}}`, p.server.URL, window)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		p.t.Fatal(err)
	}
	return []string{"--model", "local/small"}
}

// prose returns about n tokens of text (4 characters a token, as pi and the server count).
func prose(n int) string { return strings.Repeat("word ", n*4/5) }

// compactions reads the compaction entries of the project's only session file.
func (p *project) compactions() []map[string]any {
	p.t.Helper()
	files, _ := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		p.t.Fatalf("session files: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		p.t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			p.t.Fatalf("bad line %q: %v", line, err)
		}
		if e["type"] == "compaction" {
			out = append(out, e)
		}
	}
	return out
}

// A long session on a model with an 8k window fills it in a turn that reads a big file. With the
// window known, the compaction runs between that turn and the next request, when the threshold is
// crossed (pi 1.6's prepareNextTurn), so nothing overflows; with a guessed window the next request
// overflows and the error's window starts the compaction. Either way the compaction summarises the
// earlier prompts (scaled to the window, pi's 20000 kept tokens would keep everything), keeps the
// read, and the continued run fits.
func TestOverflowInA8kWindowCompactsAndTheRunContinues(t *testing.T) {
	for _, c := range []struct {
		name    string
		style   openaitest.Overflow
		noUsage bool
		args    func(p *project) []string
		// reason is the compaction's; overflow also means one request overflowed first.
		reason string
	}{
		{"registered window, OpenAI's error", openaitest.OverflowOpenAI, false, func(p *project) []string { return p.registerWindow(8192) }, "threshold"},
		// A --base-url server's window is a guess (128k); the overflow error names the real one.
		{"guessed window, llama.cpp's error", openaitest.OverflowLlamaCpp, false, func(p *project) []string {
			return []string{"--base-url", p.server.URL, "--model", "small"}
		}, "overflow"},
		// Without usage the sizes are estimates, which must count the system prompt and the tools.
		{"server without usage", openaitest.OverflowOpenAI, true, func(p *project) []string { return p.registerWindow(8192) }, "threshold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t)
			ws := startWindowServerWith(p, &windowServer{window: 8192, noUsage: c.noUsage}, c.style)
			args := c.args(p)
			p.write("big.txt", strings.Repeat("a line of the big file\n", 700)) // about 4000 tokens
			prompts := []string{"first: " + prose(1500), "second: " + prose(1500), "read big.txt"}
			for i, prompt := range prompts {
				a := append(append([]string{}, args...), "-p", prompt)
				if i > 0 {
					a = append(a, "-c")
				}
				r := p.run("", a...)
				if r.code != 0 {
					t.Fatalf("run %d: exit %d stdout %q stderr %q", i+1, r.code, r.stdout, r.stderr)
				}
				if i == len(prompts)-1 && (!strings.HasPrefix(r.stdout, "Answer ") || !strings.Contains(r.stderr, "Compacting the context ("+c.reason+")")) {
					t.Errorf("the last run: stdout %q stderr %q", r.stdout, r.stderr)
				}
			}
			overflows, largest, summaries, after := ws.stats()
			if wantOverflows := map[string]int{"threshold": 0, "overflow": 1}[c.reason]; overflows != wantOverflows {
				t.Errorf("%d overflow errors, want %d", overflows, wantOverflows)
			}
			// The history summary and the split turn's prefix summary run in parallel, in any order.
			covered := false
			for _, s := range summaries {
				covered = covered || strings.Contains(s, "[User]: first: word") && strings.Contains(s, "[User]: second: word")
			}
			if len(summaries) != 2 || !covered {
				t.Fatalf("the summary must cover the earlier prompts: %.300q", summaries)
			}
			// pi 1.6 lets a summary use the model's whole output limit (maxTokens 1024 here).
			ws.mu.Lock()
			limits := append([]int(nil), ws.sumLimits...)
			ws.mu.Unlock()
			if c.name != "guessed window, llama.cpp's error" && (len(limits) != 2 || limits[0] != 1024 || limits[1] != 1024) {
				t.Errorf("summary requests' max_completion_tokens %v, want the model's 1024", limits)
			}
			if len(after) == 0 {
				t.Fatal("no request after the compaction")
			}
			for _, n := range after {
				if n > 8192 {
					t.Errorf("a request of %d tokens after the compaction", n)
				}
			}
			comps := p.compactions()
			if len(comps) != 1 {
				t.Fatalf("%d compactions", len(comps))
			}
			// "Compacted from N tokens" is the size of the context that crossed the threshold (8192 −
			// 2048 reserved) or overflowed (the server counted more than 8192), not a fraction of it.
			if before := comps[0]["tokensBefore"].(float64); before < (8192-2048)*0.9 || before > 8192*1.5 {
				t.Errorf("tokensBefore %v for a context over the threshold (largest answered %d)", before, largest)
			}
		})
	}
}

// On a model with a 32k window the threshold (scaled: 32768 − 8192) compacts a long session to a
// fraction of its size, and no request ever overflows.
func TestThresholdCompactionIn32kWindowShrinksTheContext(t *testing.T) {
	p := newProject(t)
	ws := startWindowServer(p, 32768, openaitest.OverflowOpenAI)
	args := p.registerWindow(32768)
	for i := range 6 {
		a := append(append([]string{}, args...), "-p", fmt.Sprintf("prompt %d: %s", i+1, prose(6000)))
		if i > 0 {
			a = append(a, "-c")
		}
		if r := p.run("", a...); r.code != 0 {
			t.Fatalf("run %d: exit %d stderr %q", i+1, r.code, r.stderr)
		}
	}
	overflows, _, summaries, _ := ws.stats()
	if overflows != 0 {
		t.Errorf("%d requests overflowed", overflows)
	}
	if len(summaries) == 0 {
		t.Fatal("no compaction")
	}
	for i, s := range summaries {
		if strings.HasPrefix(s, "<conversation>\n\n</conversation>") {
			t.Errorf("summary request %d has an empty conversation", i+1)
		}
	}
	// The request after a compaction (the next prompt added) is smaller than the one before it.
	ws.mu.Lock()
	sizes := ws.sizes
	ws.mu.Unlock()
	for i := 1; i+1 < len(sizes); i++ {
		if sizes[i] == -1 && sizes[i-1] != -1 && sizes[i+1] != -1 && sizes[i+1] >= sizes[i-1] {
			t.Errorf("requests around a compaction: %d then %d tokens (all: %v)", sizes[i-1], sizes[i+1], sizes)
		}
	}
}

// A window so small that the turn being answered does not fit even after compacting everything
// else: one clear message, no summary request, no second attempt, exit 1.
func TestOverflowThatCompactionCannotFixSaysSo(t *testing.T) {
	p := newProject(t)
	ws := startWindowServer(p, 4096, openaitest.OverflowLlamaCpp)
	args := p.registerWindow(4096)
	p.write("big.txt", strings.Repeat("a line of the big file\n", 520)) // about 3000 tokens
	r := p.run("", append(args, "-p", "read big.txt")...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	overflows, _, summaries, _ := ws.stats()
	if overflows != 1 || len(summaries) != 0 || len(p.server.Requests()) != 2 {
		t.Errorf("%d overflows, %d summary requests, %d requests: want 1, 0, 2", overflows, len(summaries), len(p.server.Requests()))
	}
	want := "Context overflow recovery failed: the newest messages (about "
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "do not fit the model's context window of 4096 tokens") ||
		!strings.Contains(r.stderr, "exceeds the available context size") {
		t.Errorf("stderr must say why and show the server's error:\n%s", r.stderr)
	}
	if n := len(p.compactions()); n != 0 {
		t.Errorf("%d compactions written", n)
	}
}
