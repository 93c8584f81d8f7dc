package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/session/sessiontest"
)

// target is one row of the table: a server to run against and the same command for both programs.
type target struct {
	name string
	// once: one run is enough (it is itself many processes), whatever -runs says.
	once bool
	// setup starts what the target needs under root and returns the runner of one measured run of a
	// program (built by mk from a models.json and a settings.json) and a cleanup.
	setup func(ctx context.Context, root string) (run func(ctx context.Context, p program, w workspace) (sample, error), models, settings string, cleanup func(), err error)
}

// modelsJSON is the models.json of both programs: one OpenAI-compatible provider "bench" at url with
// a model "test-model" whose window holds a whole 50 MB session.
func modelsJSON(url string) string {
	return `{"providers":{"bench":{"baseUrl":"` + url + `","api":"openai-completions","apiKey":"none",` +
		`"models":[{"id":"test-model","contextWindow":1000000,"maxTokens":8192}]}}}`
}

var modelArgs = []string{"--provider", "bench", "--model", "test-model"}

// streamTarget: one answer of n one-character deltas, in print, JSON or RPC mode.
func streamTarget(mode string, n int) target {
	return target{
		name: fmt.Sprintf("%s, %s deltas", map[string]string{"print": "-p", "json": "--mode json", "rpc": "--mode rpc"}[mode], thousands(n)),
		setup: func(ctx context.Context, root string) (func(context.Context, program, workspace) (sample, error), string, string, func(), error) {
			srv := openaitest.NewServer()
			srv.SetFallback(openaitest.Response{Raw: openaitest.LongText("test-model", n, "a")})
			run := func(ctx context.Context, p program, w workspace) (sample, error) {
				switch mode {
				case "print":
					s, err := measure(ctx, p, w.proj, append(modelArgs, "-p", "hi"), closeStdin)
					if err == nil && s.out != int64(n)+1 {
						err = fmt.Errorf("%s printed %d bytes, want %d", p.name, s.out, n+1)
					}
					return s, err
				case "json":
					return measure(ctx, p, w.proj, append(modelArgs, "--mode", "json", "hi"), closeStdin)
				default:
					return measure(ctx, p, w.proj, append(modelArgs, "--mode", "rpc", "--no-session"), rpcPrompt("hi"))
				}
			}
			return run, modelsJSON(srv.URL), "", srv.Close, nil
		},
	}
}

// sseOK is a short answer with a usage chunk.
var sseOK = strings.Join([]string{
	openaitest.NewChunks("test-model").Text("ok"),
	openaitest.NewChunks("test-model").Finish("stop"),
	openaitest.NewChunks("test-model").Usage(1000, 1, 0),
	openaitest.Done(),
}, "")

// resumeTarget: `--session FILE -p hi` on a generated session of turns turns (50 MB for 5,000),
// answered "ok" by a server that reads and discards the whole request.
func resumeTarget(turns int) target {
	return target{
		name: fmt.Sprintf("resume %s-turn session, -p", thousands(turns)),
		setup: func(ctx context.Context, root string) (func(context.Context, program, workspace) (sample, error), string, string, func(), error) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, sseOK)
			}))
			// The session's cwd is the project directory every run uses (see run).
			proj := filepath.Join(root, "proj")
			src, err := sessiontest.WriteLong(proj, filepath.Join(root, "generated"), turns)
			if err != nil {
				srv.Close()
				return nil, "", "", nil, fmt.Errorf("generating the session: %w", err)
			}
			st, err := os.Stat(src)
			if err != nil {
				srv.Close()
				return nil, "", "", nil, err
			}
			fmt.Fprintf(os.Stderr, "generated a %d-turn session of %.1f MB\n", turns, float64(st.Size())/1e6)
			run := func(ctx context.Context, p program, w workspace) (sample, error) {
				// A run appends to the session: each starts from a fresh copy.
				path := filepath.Join(w.root, p.name+"-session.jsonl")
				if err := copyFile(src, path); err != nil {
					return sample{}, err
				}
				var answer strings.Builder
				s, err := measure(ctx, p, w.proj, append(modelArgs, "--session", path, "-p", "hi"), func(stdin io.WriteCloser, out *bufio.Reader) error {
					stdin.Close()
					_, err := io.Copy(&answer, out)
					return err
				})
				if err == nil && strings.TrimSpace(answer.String()) != "ok" {
					err = fmt.Errorf("%s answered %q, want ok", p.name, answer.String())
				}
				return s, err
			}
			// Compaction off: the run measures loading and sending the session, not summarising it.
			return run, modelsJSON(srv.URL + "/v1"), `{"compaction":{"enabled":false}}`, srv.Close, nil
		},
	}
}

// concurrentTarget: procs RPC processes at once, each prompted to read a file: one tool call, its
// result, and a short answer. The sample is the whole batch: wall time from the first start to the
// last exit, the CPU time of all processes, and the mean peak RSS of one process.
func concurrentTarget(procs int) target {
	return target{
		name: fmt.Sprintf("%d x --mode rpc, a read tool call each (CPU: total, RSS: per process)", procs),
		once: true,
		setup: func(ctx context.Context, root string) (func(context.Context, program, workspace) (sample, error), string, string, func(), error) {
			srv := openaitest.NewServer()
			srv.SetResponder(func(r *openaitest.Request) openaitest.Response {
				if strings.Contains(string(r.Body), `"role":"tool"`) {
					return openaitest.TextReply("test-model", "The file ", "says hello.")
				}
				return openaitest.ToolCallReply("test-model", "Reading it.",
					openaitest.ToolCallSpec{ID: "call_1", Name: "read", Arguments: `{"path":"hello.txt"}`})
			})
			models := modelsJSON(srv.URL)
			run := func(ctx context.Context, p program, w workspace) (sample, error) {
				if err := os.WriteFile(filepath.Join(w.proj, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
					return sample{}, err
				}
				// Each process has its own agent directory, as separate users or sandboxes would: pi 1.6
				// locks its settings file, and 50 processes starting on one directory fail with ELOCKED.
				progs := make([]program, procs)
				for i := range progs {
					progs[i] = p
					env, err := w.env(fmt.Sprintf("%s-%d", p.name, i), models, "")
					if err != nil {
						return sample{}, err
					}
					progs[i].env = env
				}
				before := len(srv.Requests())
				samples := make([]sample, procs)
				errs := make([]error, procs)
				var wg sync.WaitGroup
				start := time.Now()
				for i := range procs {
					wg.Go(func() {
						samples[i], errs[i] = measure(ctx, progs[i], w.proj, append(modelArgs, "--mode", "rpc", "--no-session"), rpcPrompt("What does hello.txt say?"))
					})
				}
				wg.Wait()
				total := sample{wall: time.Since(start)}
				for i, s := range samples {
					if errs[i] != nil {
						return sample{}, errs[i]
					}
					total.cpu += s.cpu
					total.rss += s.rss
				}
				total.rss /= int64(procs)
				// Each process asks twice: the prompt, then with the read tool's result.
				if got := len(srv.Requests()) - before; got != 2*procs {
					return sample{}, fmt.Errorf("%s: the server got %d requests from %d processes, want %d", p.name, got, procs, 2*procs)
				}
				return total, nil
			}
			return run, models, "", srv.Close, nil
		},
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// thousands writes n with commas: 200,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
