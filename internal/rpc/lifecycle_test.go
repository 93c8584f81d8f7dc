package rpc

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

func TestServeReturnsWhenContextEnds(t *testing.T) {
	f := newFixture(t, fixtureOptions{inMemory: true})
	resp, _ := slowText("never", " finished")
	f.srv.Enqueue(resp)
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	go io.Copy(io.Discard, outR)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, f.sess, inR, outW, ServeOptions{Stderr: &testLog{t: t}})
		outW.Close()
	}()
	if _, err := io.WriteString(inW, `{"type":"prompt","message":"hi"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.WaitRequest(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve returned %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Serve did not return after its context ended")
	}
	if f.sess.IsStreaming() {
		t.Error("the run was not aborted")
	}
}

// failingWriter accepts a few records, then fails like a closed stdout.
type failingWriter struct{ left int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.left <= 0 {
		return 0, errors.New("broken pipe")
	}
	w.left--
	return len(p), nil
}

func TestServeStopsWhenOutputFails(t *testing.T) {
	f := newFixture(t, fixtureOptions{inMemory: true})
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), f.sess, inR, &failingWriter{left: 1}, ServeOptions{Stderr: &testLog{t: t}})
	}()
	for i := 0; i < 2; i++ {
		if _, err := io.WriteString(inW, `{"type":"get_state"}`+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "broken pipe") {
			t.Errorf("Serve returned %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Serve did not stop after its output failed")
	}
}

func TestCommandPanicIsItsErrorResponse(t *testing.T) {
	s := &server{stderr: io.Discard}
	c := &command{id: []byte(`"x"`), typ: "get_state"}
	resp := s.call(c, func(*server, *command) *response { panic("boom") })
	data, _ := resp.MarshalJSON()
	if string(data) != `{"id":"x","type":"response","command":"get_state","success":false,"error":"boom"}` {
		t.Errorf("got %s", data)
	}
}

func TestPromptWithImagesAndNewSessionParent(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.srv.SetFallback(openaitest.TextReply("thinker", "a red dot"))
	c := startClient(t, f.sess, ServeOptions{})
	c.ok(map[string]any{"type": "set_model", "provider": "mock", "modelId": "thinker"})
	img := map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
	from := c.count()
	c.ok(map[string]any{"type": "prompt", "message": "what is this?", "images": []any{img}})
	_, user := c.waitFor(from, func(r record) bool { return describe(r) == "message_start(user)" })
	if !strings.Contains(user.raw, `"content":[{"type":"text","text":"what is this?"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]`) {
		t.Errorf("user message: %s", user.raw)
	}
	c.waitEvent(from, "agent_end")
	body := string(f.srv.Requests()[0].Body)
	if !strings.Contains(body, "data:image/png;base64,iVBORw0KGgo=") {
		t.Errorf("the image did not reach the model: %s", body)
	}

	parent := f.sess.Store().SessionFile()
	c.ok(map[string]any{"type": "new_session", "parentSession": parent})
	if h := f.sess.Store().Header(); h.ParentSession != parent {
		t.Errorf("parentSession %q, want %q", h.ParentSession, parent)
	}
}
