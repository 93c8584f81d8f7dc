package scenario

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

func post(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

func TestBuildStreamsTextReasoningAndToolCalls(t *testing.T) {
	var sp Spec
	if err := json.Unmarshal([]byte(`{"reasoning":"hm","reasoningField":"reasoning","text":"a b c","pieces":-1,
		"toolCalls":[{"name":"read","arguments":{"path":"x"}}]}`), &sp); err != nil {
		t.Fatal(err)
	}
	resp, gate, err := sp.Build("mock-model", 7)
	if err != nil || gate != nil {
		t.Fatalf("build: %v, gate %v", err, gate)
	}
	srv := openaitest.Start(t)
	srv.Enqueue(resp)
	body := post(t, srv.URL)
	for _, want := range []string{`"id":"chatcmpl-mock000007"`, `"reasoning":"hm"`, `"content":"a "`, `"content":"c"`,
		`"id":"call_mock000007_0"`, `"name":"read"`, `"finish_reason":"tool_calls"`, `"prompt_tokens":1234`, "data: [DONE]"} {
		if !strings.Contains(body, want) {
			t.Errorf("stream lacks %s:\n%s", want, body)
		}
	}
}

func TestBuildErrorsCutsAndHolds(t *testing.T) {
	srv := openaitest.Start(t)
	resp, _, err := Spec{Status: 429, Error: "slow down"}.Build("m", 1)
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(resp)
	if body := post(t, srv.URL); !strings.Contains(body, `"message":"slow down"`) {
		t.Errorf("error body: %s", body)
	}

	resp, _, _ = Spec{Text: "partial answer", Pieces: 2, CutAfter: 2}.Build("m", 2)
	srv.Enqueue(resp)
	if body := post(t, srv.URL); strings.Contains(body, "finish_reason\":\"stop") || strings.Contains(body, "[DONE]") {
		t.Errorf("a cut stream must end before its finish: %s", body)
	}

	two := 2
	resp, gate, _ := Spec{Text: "held", HoldAfter: &two}.Build("m", 3)
	srv.Enqueue(resp)
	done := make(chan string)
	go func() { done <- post(t, srv.URL) }()
	if _, err := srv.WaitRequest(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if body := <-done; !strings.Contains(body, "[DONE]") {
		t.Errorf("released stream: %s", body)
	}

	if _, _, err := (Spec{End: "sideways"}).Build("m", 4); err == nil {
		t.Error("an unknown end must be refused")
	}
}
