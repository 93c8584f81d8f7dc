// Command scripted-server runs internal/provider/openaitest's scripted OpenAI-compatible server on its
// own, so that pi and pi-go can be pointed at the same scripted answers by hand (see
// scripts/interop/README.md). It is a manual tool: nothing in `make test` starts it.
//
// It prints one JSON line on stdout, {"url": <base URL for models.json>, "control": <control URL>},
// writes every request body it receives to <record>/NNN.json, and serves until SIGINT or SIGTERM.
//
// Control endpoints (plain HTTP on the control URL):
//
//	POST /enqueue   body: one scenario.Spec or an array of them, appended to the script
//	POST /release   lets the oldest held answer (holdAfter) stream its remaining events
//	GET  /wait?n=N  returns once N requests have arrived (30 s limit), body: the N-th request's body
//	GET  /count     the number of requests so far
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

func main() {
	scenario := flag.String("scenario", "", "scenario file: {\"model\": ..., \"responses\": [Spec, ...]}")
	record := flag.String("record", "", "directory to write each request body into as NNN.json")
	model := flag.String("model", "mock-model", "model name in the streamed chunks (the scenario's model wins)")
	flag.Parse()
	if err := run(*scenario, *record, *model); err != nil {
		fmt.Fprintln(os.Stderr, "scripted-server:", err)
		os.Exit(1)
	}
}

// script numbers the answers and keeps the gates of held ones.
type script struct {
	srv   *openaitest.Server
	model string

	mu    sync.Mutex
	n     int
	gates []chan struct{}
}

func (s *script) enqueue(specs []scenario.Spec) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sp := range specs {
		s.n++
		resp, gate, err := sp.Build(s.model, s.n)
		if err != nil {
			return err
		}
		if gate != nil {
			s.gates = append(s.gates, gate)
		}
		s.srv.Enqueue(resp)
	}
	return nil
}

func (s *script) release() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.gates) == 0 {
		return false
	}
	close(s.gates[0])
	s.gates = s.gates[1:]
	return true
}

func run(scenarioPath, record, model string) error {
	var sc scenario.Scenario
	if scenarioPath != "" {
		data, err := os.ReadFile(scenarioPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &sc); err != nil {
			return fmt.Errorf("%s: %w", scenarioPath, err)
		}
		if sc.Model != "" {
			model = sc.Model
		}
	}
	if record != "" {
		if err := os.MkdirAll(record, 0o755); err != nil {
			return err
		}
	}
	srv := openaitest.NewServer()
	defer srv.Close()
	sc2 := &script{srv: srv, model: model}
	if err := sc2.enqueue(sc.Responses); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	recorded := make(chan error, 1)
	go func() { recorded <- recordRequests(ctx, srv, record) }()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	control := &http.Server{Handler: controlHandler(srv, sc2)}
	served := make(chan error, 1)
	go func() { served <- control.Serve(ln) }()

	line, _ := json.Marshal(map[string]string{"url": srv.URL, "control": "http://" + ln.Addr().String()})
	fmt.Println(string(line))

	<-ctx.Done()
	shutCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	control.Shutdown(shutCtx)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if err := <-recorded; err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// recordRequests writes each request body to dir as it arrives, until ctx ends.
func recordRequests(ctx context.Context, srv *openaitest.Server, dir string) error {
	for n := 1; ; n++ {
		r, err := srv.WaitRequest(ctx, n)
		if err != nil {
			return err
		}
		if dir == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.json", n)), r.Body, 0o644); err != nil {
			return err
		}
	}
}

func controlHandler(srv *openaitest.Server, sc *script) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /enqueue", func(w http.ResponseWriter, r *http.Request) {
		var raw json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var specs []scenario.Spec
		if len(raw) > 0 && raw[0] == '[' {
			if err := json.Unmarshal(raw, &specs); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		} else {
			var one scenario.Spec
			if err := json.Unmarshal(raw, &one); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			specs = []scenario.Spec{one}
		}
		if err := sc.enqueue(specs); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, srv.Pending())
	})
	mux.HandleFunc("POST /release", func(w http.ResponseWriter, r *http.Request) {
		if !sc.release() {
			http.Error(w, "no held answer", http.StatusConflict)
		}
	})
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, len(srv.Requests()))
	})
	mux.HandleFunc("GET /wait", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil || n < 1 {
			http.Error(w, "n must be a positive number", http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		req, err := srv.WaitRequest(ctx, n)
		if err != nil {
			http.Error(w, err.Error(), http.StatusGatewayTimeout)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(req.Body)
	})
	return mux
}
