package tools

import (
	"context"
	"math"
	"runtime"
	"sync"
	"unicode/utf8"
)

// grepMatch is one matching line, from rg's JSON or from the pure-Go search.
type grepMatch struct {
	path string // absolute
	line int
	// text is the line with its terminator; nil when it is not UTF-8 (rg then sends bytes, and the
	// line is read back from the file).
	text *string
}

// grepRequest is one search.
type grepRequest struct {
	searchPath string // absolute
	isDir      bool
	pattern    string
	literal    bool
	ignoreCase bool
	glob       string
	// limit is the effective match limit (at least 1; a JSON number).
	limit float64
	// cwd is where rg runs: its --glob rules are relative to it.
	cwd string
}

func (r *grepRequest) maxMatches() int {
	if r.limit >= math.MaxInt32 {
		return math.MaxInt32
	}
	return int(math.Ceil(r.limit))
}

// grepJob is one file of the pure-Go search; done closes when matches are in.
type grepJob struct {
	path    string
	done    chan struct{}
	matches []grepMatch
	counted int // matches whose path is not UTF-8: counted like rg's, but not shown
}

// grepNativeWindow bounds how many files are searched ahead of the one being collected.
const grepNativeWindow = 256

// grepSearchNative searches as `rg --json --hidden` would and returns the matches in sorted path
// order (with the limit, the first ones in that order) and whether the limit was reached.
func grepSearchNative(parent context.Context, req *grepRequest) ([]grepMatch, bool, error) {
	m, err := grepNewMatcher(req.pattern, req.literal, req.ignoreCase)
	if err != nil {
		return nil, false, err
	}
	maxN := req.maxMatches()
	if !req.isDir {
		job := &grepJob{path: req.searchPath}
		grepRunJob(&grepScanner{m: m}, job, false, maxN)
		if err := parent.Err(); err != nil {
			return nil, false, err
		}
		return job.matches, len(job.matches)+job.counted >= maxN, nil
	}
	opts := &walkOptions{
		customIgnore: ".rgignore",
		requireGit:   true,
		globalGit:    walkLoadGlobal(walkGlobalGitExcludes(), req.cwd),
	}
	if req.glob != "" {
		ov, err := giParseGlobs(req.cwd, []string{req.glob})
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
		_ = walkTree(ctx, req.searchPath, opts, func(e *walkEntry) bool {
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

	var matches []grepMatch
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
		mt := grepMatch{path: job.path, line: line}
		if utf8.Valid(text) {
			str := string(text)
			mt.text = &str
		}
		job.matches = append(job.matches, mt)
	})
}
