package search

import (
	"context"
	"math"
	"os/exec"
	"runtime"
	"sync"
	"unicode/utf8"
)

// Match is one matching line, from rg's JSON or from the pure-Go search.
type Match struct {
	Path string // absolute
	Line int
	// Text is the line with its terminator; nil when it is not UTF-8 (rg then sends bytes, and the
	// line is read back from the file).
	Text *string
}

// GrepRequest is one grep search.
type GrepRequest struct {
	Path       string // absolute
	IsDir      bool
	Pattern    string
	Literal    bool
	IgnoreCase bool
	Glob       string
	// Limit is the effective match limit (at least 1; a JSON number).
	Limit float64
	// Cwd is where rg runs: its --glob rules are relative to it.
	Cwd string
}

// Backend chooses between the external programs (rg, fd) and the pure-Go search.
type Backend int

const (
	Auto   Backend = iota // rg or fd when usable, else pure Go
	PureGo                // always pure Go
)

// Grep searches as pi's grep tool does with ripgrep: with rg when the backend allows and it is on
// PATH, else with the pure-Go search, which gives the same matches. It returns the matches in sorted
// path order (with the limit, the first ones in that order) and whether the limit was reached.
func Grep(ctx context.Context, req *GrepRequest, backend Backend) ([]Match, bool, error) {
	if backend != PureGo {
		if rg, err := exec.LookPath("rg"); err == nil {
			return grepRipgrep(ctx, rg, req)
		}
	}
	return grepNative(ctx, req)
}

func (r *GrepRequest) maxMatches() int {
	if r.Limit >= math.MaxInt32 {
		return math.MaxInt32
	}
	return int(math.Ceil(r.Limit))
}

// grepJob is one file of the pure-Go search; done closes when matches are in.
type grepJob struct {
	path    string
	done    chan struct{}
	matches []Match
	counted int // matches whose path is not UTF-8: counted like rg's, but not shown
}

// grepNativeWindow bounds how many files are searched ahead of the one being collected.
const grepNativeWindow = 256

// grepNative searches as `rg --json --hidden` would and returns the matches in sorted path
// order (with the limit, the first ones in that order) and whether the limit was reached.
func grepNative(parent context.Context, req *GrepRequest) ([]Match, bool, error) {
	m, err := grepNewMatcher(req.Pattern, req.Literal, req.IgnoreCase)
	if err != nil {
		return nil, false, err
	}
	maxN := req.maxMatches()
	if !req.IsDir {
		job := &grepJob{path: req.Path}
		grepRunJob(&grepScanner{m: m}, job, false, maxN)
		if err := parent.Err(); err != nil {
			return nil, false, err
		}
		return job.matches, len(job.matches)+job.counted >= maxN, nil
	}
	opts := &walkOptions{
		customIgnore: ".rgignore",
		requireGit:   true,
		globalGit:    walkLoadGlobal(walkGlobalGitExcludes(), req.Cwd),
	}
	if req.Glob != "" {
		ov, err := giParseGlobs(req.Cwd, []string{req.Glob})
		if err != nil {
			return nil, false, err
		}
		opts.overrides = ov
	}

	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	workers := max(2, runtime.GOMAXPROCS(0))
	work := make(chan *grepJob, 4*workers)
	order := make(chan *grepJob, grepNativeWindow)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(work)
		_ = walkTree(ctx, req.Path, opts, func(e *walkEntry) bool {
			if e.kind != walkFile {
				return true
			}
			job := &grepJob{path: e.abs, done: make(chan struct{})}
			select {
			case work <- job:
			case <-ctx.Done():
				return false
			}
			select {
			case order <- job:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &grepScanner{m: m}
			for job := range work {
				if ctx.Err() == nil {
					grepRunJob(s, job, true, maxN)
				}
				close(job.done)
			}
		}()
	}

	var matches []Match
	count := 0
	reached := false
collect:
	for job := range order {
		select {
		case <-job.done:
		case <-ctx.Done():
			break collect
		}
		count += job.counted
		for _, mt := range job.matches {
			if count >= maxN {
				break
			}
			matches = append(matches, mt)
			count++
		}
		if count >= maxN {
			reached = true
			break
		}
	}
	cancel()
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, false, err
	}
	return matches, reached, nil
}

// grepRunJob searches one file into job.
func grepRunJob(s *grepScanner, job *grepJob, quitOnNUL bool, maxN int) {
	validPath := utf8.ValidString(job.path)
	_ = s.searchFile(job.path, quitOnNUL, maxN, func(line int, text []byte) {
		if !validPath {
			job.counted++
			return
		}
		mt := Match{Path: job.path, Line: line}
		if utf8.Valid(text) {
			str := string(text)
			mt.Text = &str
		}
		job.matches = append(job.matches, mt)
	})
}
