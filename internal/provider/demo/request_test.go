package demo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// bodyReaders gives the same body whole and in awkward pieces, so that every buffer boundary of the
// streaming decoder is crossed.
func bodyReaders(body []byte) map[string]io.Reader {
	readers := map[string]io.Reader{
		"whole":   bytes.NewReader(body),
		"halves":  iotest.HalfReader(bytes.NewReader(body)),
		"dataEOF": iotest.DataErrReader(bytes.NewReader(body)),
	}
	if len(body) < 64<<10 {
		readers["bytes"] = iotest.OneByteReader(bytes.NewReader(body))
	} else {
		readers["7-bytes"] = &chunkReader{r: bytes.NewReader(body), n: 7}
	}
	return readers
}

// chunkReader reads at most n bytes at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// checkAgainstReference decodes body with the streaming decoder (every reader, keeping all text) and
// with encoding/json (referenceParse): both accept it or both refuse it for the same reason, and what
// they decode is the same.
func checkAgainstReference(t *testing.T, body []byte) {
	t.Helper()
	want, wantErr := referenceParse(body)
	for name, r := range bodyReaders(body) {
		got, err := readRequest(r, []int64{-1, int64(len(body))}[len(name)%2], true)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: error %v, reference error %v\nbody: %.300q", name, err, wantErr, body)
		}
		if err != nil {
			var re, wre *requestError
			if !errors.As(err, &re) || !errors.As(wantErr, &wre) {
				t.Fatalf("%s: error %v (%T), reference %v (%T)", name, err, err, wantErr, wantErr)
			}
			// Syntax and type errors are worded as encoding/json words them, near enough: the kind of
			// error, the message it is about and the rest of the text must agree.
			parse := strings.HasPrefix(re.Message, "We could not parse")
			got, want := re.Message, wre.Message
			if i := strings.Index(want, "json: cannot unmarshal"); i >= 0 && !parse {
				want, got = want[:i], got[:min(i, len(got))]
			}
			if parse != strings.HasPrefix(wre.Message, "We could not parse") || !parse && got != want || re.Param != wre.Param {
				t.Fatalf("%s: error %q (param %q), reference %q (param %q)\nbody: %.300q", name, re.Message, re.Param, wre.Message, wre.Param, body)
			}
			continue
		}
		for i := range got.Messages {
			if got.Messages[i].tokens != messageTokens(got.Messages[i]) {
				t.Fatalf("%s: message %d counts %d tokens, want %d", name, i, got.Messages[i].tokens, messageTokens(got.Messages[i]))
			}
			got.Messages[i].tokens = 0
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decoded\n%+v\nreference\n%+v", name, got, want)
		}
	}
}

// requestSeeds are bodies that exercise the decoder: the test chats, and JSON edge cases.
func requestSeeds() [][]byte {
	imgs := newChat("read").user("look")
	imgs.msgs = append(imgs.msgs, map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "what is this?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,AAAA"}}}})
	seeds := [][]byte{
		newChat(defaultTools()...).user("help").body(),
		newChat("ls", "bash").user("run `ls`").call("", "c", "bash", `{"command":"ls"}`).result("c", "a\nb\n").body(),
		imgs.body(),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"caf\u00e9 \ud83d\ude00 \ud800 \ud800x \"q\" \\ \/ \b\f\n\r\t"}]}`),
		[]byte("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"bad \xff utf8 \xe2\x82 end\"}]}"),
		[]byte(`{"MODEL":"m","Messages":[{"ROLE":"user","Content":"hi","extra":{"a":[1,2.5e-3,-0,true,false,null]}}],"unknown":[{}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],"messages":null}`),
		[]byte(`{"model":"m","messages":null,"messages":[{"role":"user","content":"a"}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a","content":[{"type":"text","text":"b"}]}]}`),
		[]byte(`{"model":"m","messages":[null]}`),
		[]byte(`{"model":"m","messages":[1]}`),
		[]byte(`{"model":"m","messages":"x"}`),
		[]byte(`{"model":"m","messages":[{"role":5}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":{"a":1}}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[1]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"tool","content":"x"}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":"x"}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"ls","arguments":"{}"}}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[null,{"ID":"a","Function":null,"x":[1]},{"function":{"NAME":"ls","arguments":null,"y":{}}}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":null}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"function":{"name":5}}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"function":"x"}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[7]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"a"}],"tool_calls":[{"id":"b"},{"id":"c"}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[null,{"TYPE":"text","Text":"a","x":1},{"type":"text"},{"type":"image_url","image_url":{"url":"data:x","u":2}},{"type":"image_url"},{"type":"image_url","image_url":null},{"type":"text","text":null},{"type":"image_url","image_url":{"url":"a"},"image_url":{"x":1}}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":5}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":[]}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":"x"}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":1}}]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":["x"]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"robot","content":[1]}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"` + strings.Repeat(`x\ny`, 300000) + `"}]}]}`),
		[]byte(`{"model":"m","stream":"yes","messages":[{"role":"user","content":"a"}]}`),
		[]byte(`{"model":"m","max_tokens":1.5,"messages":[{"role":"user","content":"a"}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}]} trailing`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}]`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a\u12"}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a\x"}]}`),
		[]byte("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\nb\"}]}"),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],"n":01}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],"n":-}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],"n":1.}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],"n":1e+}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],"n":tru}`),
		[]byte(`{"model":"m","messages":[]}`),
		[]byte(`{"messages":[{"role":"user","content":"a"}]}`),
		[]byte(`{"model":"m"}`),
		[]byte(`[]`), []byte(`null`), []byte(`"x"`), []byte(``), []byte(`{`), []byte(` `),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat(`\"é\\`, 30000) + `"}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat(`abc\n日本\"`, 200000) + `"},{"role":"user","content":"` + strings.Repeat("é", 600000) + `"}]}`),
		[]byte(`{"model":"m","messages":[{"role":"user","content":"x"}],"deep":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`),
	}
	return seeds
}

func TestStreamingDecoderAgreesWithEncodingJSON(t *testing.T) {
	for i, body := range requestSeeds() {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkAgainstReference(t, body) })
	}
}

func FuzzStreamingDecoder(f *testing.F) {
	for _, body := range requestSeeds() {
		if len(body) < 4096 {
			f.Add(body)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkAgainstReference(t, body) })
}

// randomTranscript is a chat of n random steps: prompts (some with images), tool runs, steering
// messages, aborted turns, images attached to tool results, summary requests.
func randomTranscript(r *rand.Rand, n int) *chat {
	c := newChat("read", "bash", "ls")
	prompts := []string{"help", "summarise this project", "read README.md", "run `go test`", "list the files", "thanks", "stop"}
	for i := 0; i < n; i++ {
		switch r.Intn(7) {
		case 0, 1:
			c.user(prompts[r.Intn(len(prompts))])
		case 2:
			id := fmt.Sprintf("c%d", i)
			c.call("", id, "bash", `{"command":"ls"}`).result(id, "README.md\ngo.mod\n")
		case 3:
			id := fmt.Sprintf("r%d", i)
			c.call("Reading.", id, "read", `{"path":"README.md"}`).result(id, "# Title\n\nText.\n")
			if r.Intn(3) == 0 {
				c.msgs = append(c.msgs, map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "text", "text": attachedImagesText},
					map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,AAAA"}}}})
			}
		case 4:
			c.assistant(fmt.Sprintf("Answer %d.", i))
		case 5:
			id := fmt.Sprintf("l%d", i)
			c.call("", id, "ls", `{"path":"."}`).result(id, "a.go\nb.go\n").user("actually, stop")
		case 6:
			c.user(fmt.Sprintf("<conversation>\n[User]: step %d\n\n[Assistant tool calls]: read(path=\"a.go\")\n</conversation>\n\n## Goal\n## Done\n", i))
		}
	}
	return c
}

// TestWindowKeepsWhatTheScriptReads: for many transcripts, the answer and the usage from a request
// decoded with only the window's text are those from the request decoded whole.
func TestWindowKeepsWhatTheScriptReads(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 400; i++ {
		c := randomTranscript(r, 1+r.Intn(30))
		c.reasoning = []string{"", "high"}[r.Intn(2)]
		body := c.body()
		full, err := readRequest(bytes.NewReader(body), -1, true)
		if err != nil {
			t.Fatal(err)
		}
		win, err := readRequest(bytes.NewReader(body), int64(len(body)), false)
		if err != nil {
			t.Fatal(err)
		}
		rf, rw := plan(full), plan(win)
		if !reflect.DeepEqual(rf, rw) {
			t.Fatalf("transcript %d: answer with the window\n%+v\nwhole\n%+v", i, rw, rf)
		}
		if uf, uw := estimateUsage(full, rf), estimateUsage(win, rw); uf != uw {
			t.Fatalf("transcript %d: usage %+v, whole %+v", i, uw, uf)
		}
	}
}

// TestWindowLetsOldTextGo: of a long transcript, only the last turns keep their text.
func TestWindowLetsOldTextGo(t *testing.T) {
	c := newChat("read")
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("c%d", i)
		c.user(fmt.Sprintf("prompt %d", i)).call("", id, "read", `{"path":"a.go"}`).result(id, strings.Repeat("x", 1000)).assistant("done")
	}
	body := c.body()
	conv, err := readRequest(bytes.NewReader(body), int64(len(body)), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(conv.Messages) != 4001 {
		t.Fatalf("%d messages, want 4001", len(conv.Messages))
	}
	kept := 0
	for _, m := range conv.Messages {
		kept += len(m.Text)
	}
	if kept > 5000 {
		t.Fatalf("%d bytes of text kept; only the last two turns should be", kept)
	}
}

// TestRequestBodyTooLarge: a body over the limit gets 413, even when it is malformed too (the size is
// checked first, as when the whole body was read before decoding).
func TestRequestBodyTooLarge(t *testing.T) {
	body := []byte(`{"model":"m","messages":[` + strings.Repeat("x", maxRequestBody))
	resp := roundTrip(t, t.Context(), body)
	defer resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
}
