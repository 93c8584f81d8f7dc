package openaitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSplitEventsReproducesTheBody(t *testing.T) {
	raw := ": OPENROUTER PROCESSING\n\ndata: {\"a\":1}\r\n\r\ndata: [DONE]\n\ntrailing"
	events := SplitEvents([]byte(raw))
	want := []string{": OPENROUTER PROCESSING\n\n", "data: {\"a\":1}\r\n\r\n", "data: [DONE]\n\n", "trailing"}
	if strings.Join(events, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", events)
	}
}

func TestTranscriptsLoad(t *testing.T) {
	for _, name := range []string{"openai-text.sse", "openrouter-error.sse", "llamacpp-tool-call.sse"} {
		events, err := LoadTranscript(name)
		if err != nil || len(events) < 2 {
			t.Fatalf("%s: %d events, %v", name, len(events), err)
		}
	}
	if _, err := LoadTranscript("missing.sse"); err == nil {
		t.Fatal("a missing transcript loaded")
	}
}

func TestLongText(t *testing.T) {
	body := LongText("m", 1000, "a")
	sc := bufio.NewScanner(bytes.NewReader(body))
	deltas := 0
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		if line == "" || line == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("bad chunk %q: %v", line, err)
		}
		if len(c.Choices) == 1 && c.Choices[0].Delta.Content == "a" {
			deltas++
		}
	}
	if deltas != 1000 {
		t.Fatalf("%d deltas", deltas)
	}
}

func post(t *testing.T, s *Server, path, body string) *http.Response {
	t.Helper()
	resp, err := s.Client().Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestServerQueueFallbackAndRecording(t *testing.T) {
	s := Start(t)
	s.Enqueue(TextReply("m", "one"), ErrorResponse(429, "slow down"))
	s.Enqueue(Response{Status: 503, RetryAfter: "7", Body: "busy"})

	r1 := post(t, s, "/chat/completions", `{"n":1}`)
	b1, _ := io.ReadAll(r1.Body)
	if r1.StatusCode != 200 || r1.Header.Get("Content-Type") != "text/event-stream" || !bytes.Contains(b1, []byte(`"content":"one"`)) {
		t.Fatalf("first: %d %s", r1.StatusCode, b1)
	}
	r2 := post(t, s, "/chat/completions", `{"n":2}`)
	b2, _ := io.ReadAll(r2.Body)
	if r2.StatusCode != 429 || !bytes.Contains(b2, []byte(`"message":"slow down"`)) {
		t.Fatalf("second: %d %s", r2.StatusCode, b2)
	}
	r3 := post(t, s, "/chat/completions", `{"n":3}`)
	if r3.StatusCode != 503 || r3.Header.Get("Retry-After") != "7" {
		t.Fatalf("third: %d %v", r3.StatusCode, r3.Header)
	}
	r4 := post(t, s, "/chat/completions", `{"n":4}`)
	b4, _ := io.ReadAll(r4.Body)
	if r4.StatusCode != 500 || !bytes.Contains(b4, []byte("no response scripted for request 4")) {
		t.Fatalf("unscripted: %d %s", r4.StatusCode, b4)
	}
	s.SetFallback(TextReply("m", "again"))
	r5 := post(t, s, "/chat/completions", `{}`)
	if b5, _ := io.ReadAll(r5.Body); !bytes.Contains(b5, []byte("again")) {
		t.Fatalf("fallback: %s", b5)
	}
	r6 := post(t, s, "/models", `{}`)
	if r6.StatusCode != 404 {
		t.Fatalf("wrong path: %d", r6.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 6 || string(reqs[1].Body) != `{"n":2}` || reqs[5].Path != "/v1/models" || s.Pending() != 0 {
		t.Fatalf("recorded %d requests", len(reqs))
	}
	if r, err := s.WaitRequest(context.Background(), 3); err != nil || string(r.Body) != `{"n":3}` {
		t.Fatalf("WaitRequest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := s.WaitRequest(ctx, 99); err == nil {
		t.Fatal("WaitRequest for a request that never comes returned")
	}
}

func TestGateAndSent(t *testing.T) {
	s := Start(t)
	gate := make(chan struct{})
	sent := make(chan int)
	s.Enqueue(Response{Events: []string{Data("1"), Data("2")}, Gate: gate, Sent: sent})
	resp := post(t, s, "/chat/completions", `{}`)
	r := bufio.NewReader(resp.Body)
	for i := 0; i < 2; i++ {
		gate <- struct{}{}
		if got := <-sent; got != i {
			t.Fatalf("sent %d, want %d", got, i)
		}
		line, err := r.ReadString('\n')
		if err != nil || line != "data: "+string(rune('1'+i))+"\n" {
			t.Fatalf("line %q %v", line, err)
		}
		r.ReadString('\n')
	}
}

func TestStallEndsWhenServerCloses(t *testing.T) {
	s := NewServer()
	s.Enqueue(Response{Events: []string{Data("1")}, End: EndStall})
	resp, err := s.Client().Post(s.URL+"/chat/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		done <- err
	}()
	s.Close() // must not wait for the stalled response forever
	<-done
}

func TestKeepAliveOnly(t *testing.T) {
	s := Start(t)
	s.Enqueue(Response{Events: []string{}, End: EndKeepAlive, KeepAlive: time.Millisecond})
	resp, err := s.Client().Post(s.URL+"/chat/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	for i := 0; i < 3; i++ {
		line, err := r.ReadString('\n')
		if err != nil || line != ": keep-alive\n" {
			t.Fatalf("line %d: %q %v", i, line, err)
		}
		if blank, _ := r.ReadString('\n'); blank != "\n" {
			t.Fatalf("comment not terminated: %q", blank)
		}
	}
}

func TestTrickleWritesOneByteAtATime(t *testing.T) {
	s := Start(t)
	events := []string{Data("ab"), Done()}
	want := strings.Join(events, "")
	const tick = 2 * time.Millisecond
	s.Enqueue(Response{Events: events, Trickle: tick})
	start := time.Now()
	resp, err := s.Client().Post(s.URL+"/chat/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || string(got) != want {
		t.Fatalf("got %q %v, want %q", got, err, want)
	}
	// The server pauses before every byte, so the body cannot arrive sooner (how the client's reads
	// split it depends on scheduling).
	if elapsed := time.Since(start); elapsed < time.Duration(len(want))*tick {
		t.Fatalf("body of %d bytes arrived in %v: not trickled", len(want), elapsed)
	}
}

func TestWindowAnswersOverflowLikeTheRealServers(t *testing.T) {
	s := Start(t)
	var seen []int
	for _, style := range []Overflow{OverflowOpenAI, OverflowLlamaCpp} {
		w := Window{Tokens: 100, Server: style, Answer: func(r *Request, prompt int) Response {
			seen = append(seen, prompt)
			return Reply("m", prompt, "ok")
		}}
		s.SetResponder(w.Respond)
		small := `{"messages":[{"role":"user","content":"hi"}]}`
		resp, err := s.Client().Post(s.URL+"/chat/completions", "application/json", strings.NewReader(small))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"prompt_tokens":`+strconv.Itoa(PromptTokens([]byte(small)))) {
			t.Errorf("a request that fits: %d %s", resp.StatusCode, body)
		}
		big := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 400) + `"}]}`
		resp, err = s.Client().Post(s.URL+"/chat/completions", "application/json", strings.NewReader(big))
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		want := map[Overflow]string{
			OverflowOpenAI:   `"message":"This model's maximum context length is 100 tokens. However, your messages resulted in 111 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"`,
			OverflowLlamaCpp: `"message":"request (111 tokens) exceeds the available context size (100 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":111,"n_ctx":100`,
		}[style]
		if resp.StatusCode != 400 || !strings.Contains(string(body), want) {
			t.Errorf("a request that does not fit: %d %s", resp.StatusCode, body)
		}
	}
	if len(seen) != 2 {
		t.Errorf("answered %v", seen)
	}
}
