package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
)

// grepRgEvent is the part of ripgrep's --json "match" message pi reads.
type grepRgEvent struct {
	Type string `json:"type"`
	Data struct {
		Path struct {
			Text *string `json:"text"`
		} `json:"path"`
		Lines struct {
			Text *string `json:"text"`
		} `json:"lines"`
		LineNumber *int `json:"line_number"`
	} `json:"data"`
}

// grepStderrMax bounds how much of rg's stderr is kept for an error message.
const grepStderrMax = 64 * 1024

// grepRipgrep runs ripgrep as pi does (--json, stopped at the limit) from the session directory, so
// --glob patterns are relative to it. .git is excluded as the pure-Go search excludes it. Matches come
// back sorted by path (ripgrep's parallel order is arbitrary).
func grepRipgrep(ctx context.Context, rgPath string, req *GrepRequest) ([]Match, bool, error) {
	args := []string{"--json", "--line-number", "--color=never", "--hidden"}
	if req.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if req.Literal {
		args = append(args, "--fixed-strings")
	}
	if req.Glob != "" {
		args = append(args, "--glob", req.Glob)
	}
	args = append(args, "--glob", "!.git", "--", req.Pattern, req.Path)
	cmd := exec.Command(rgPath, args...)
	if st, err := os.Stat(req.Cwd); err == nil && st.IsDir() {
		cmd.Dir = req.Cwd
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	var stderr cappedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("Failed to run ripgrep: %w", err)
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-stopped:
		}
	}()

	maxN := req.maxMatches()
	var matches []Match
	count := 0
	killedForLimit := false
	r := bufio.NewReaderSize(stdout, 64*1024)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 && bytes.HasPrefix(line, []byte(`{"type":"match"`)) {
			var ev grepRgEvent
			if json.Unmarshal(line, &ev) == nil && ev.Type == "match" {
				count++
				if ev.Data.Path.Text != nil && ev.Data.LineNumber != nil {
					matches = append(matches, Match{Path: *ev.Data.Path.Text, Line: *ev.Data.LineNumber, Text: ev.Data.Lines.Text})
				}
				if count >= maxN {
					killedForLimit = true
					_ = cmd.Process.Signal(syscall.SIGTERM)
					break
				}
			}
		}
		line = line[:0]
		if err != nil {
			break
		}
	}
	// Drain so rg never blocks on a full pipe while it is being stopped.
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if !killedForLimit && waitErr != nil {
		var exitErr *exec.ExitError
		if !errors.As(waitErr, &exitErr) {
			return nil, false, waitErr
		}
		code := exitErr.ExitCode()
		if code != 1 {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				return nil, false, errors.New(msg)
			}
			if code < 0 {
				return nil, false, errors.New("ripgrep exited with code null")
			}
			return nil, false, fmt.Errorf("ripgrep exited with code %d", code)
		}
	}
	grepSortMatches(matches)
	return matches, killedForLimit, nil
}

// grepSortMatches orders matches by path (component by component, the walk's order) and line.
func grepSortMatches(matches []Match) {
	sort.SliceStable(matches, func(i, j int) bool {
		if c := comparePaths(matches[i].Path, matches[j].Path); c != 0 {
			return c < 0
		}
		return matches[i].Line < matches[j].Line
	})
}

// comparePaths compares slash-separated paths component by component, so a directory's
// contents sort right after it (the order of a sorted depth-first walk).
func comparePaths(a, b string) int {
	for {
		ai := strings.IndexByte(a, '/')
		bi := strings.IndexByte(b, '/')
		ac, bc := a, b
		if ai >= 0 {
			ac = a[:ai]
		}
		if bi >= 0 {
			bc = b[:bi]
		}
		if c := strings.Compare(ac, bc); c != 0 {
			return c
		}
		switch {
		case ai < 0 && bi < 0:
			return 0
		case ai < 0:
			return -1
		case bi < 0:
			return 1
		}
		a, b = a[ai+1:], b[bi+1:]
	}
}

// cappedBuffer keeps the first grepStderrMax bytes written to it.
type cappedBuffer struct{ bytes.Buffer }

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := grepStderrMax - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
