package openaitest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TranscriptDir is where SSE transcripts live, relative to the module root.
const TranscriptDir = "testdata/sse"

// FindTranscript returns the path of a transcript file, looking for testdata/sse/<name> in the working
// directory and each of its parents (tests run in their package's directory).
func FindTranscript(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, TranscriptDir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("transcript %s: no %s directory holds it in the working directory or its parents", name, TranscriptDir)
		}
		dir = parent
	}
}

// LoadTranscript reads a transcript: the raw bytes a server sent, split into SSE events.
func LoadTranscript(name string) ([]string, error) {
	p, err := FindTranscript(name)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	events := SplitEvents(raw)
	if len(events) == 0 {
		return nil, errors.New("transcript " + name + " is empty")
	}
	return events, nil
}

// Transcript returns a Response replaying the named transcript one event at a time; the test fails if
// it cannot be read.
func Transcript(tb testing.TB, name string) Response {
	tb.Helper()
	events, err := LoadTranscript(name)
	if err != nil {
		tb.Fatal(err)
	}
	return Response{Events: events}
}

// SplitEvents cuts a raw SSE body into events, each ending with its blank line (LF or CRLF line
// endings), so that writing them in order reproduces the body byte for byte. Trailing bytes with no
// blank line after them form the last event.
func SplitEvents(raw []byte) []string {
	var events []string
	for len(raw) > 0 {
		end := -1
		for i := 0; i < len(raw); i++ {
			if raw[i] != '\n' {
				continue
			}
			// A blank line follows this line feed?
			rest := raw[i+1:]
			if bytes.HasPrefix(rest, []byte("\n")) {
				end = i + 2
			} else if bytes.HasPrefix(rest, []byte("\r\n")) {
				end = i + 3
			}
			if end >= 0 {
				break
			}
		}
		if end < 0 {
			end = len(raw)
		}
		events = append(events, string(raw[:end]))
		raw = raw[end:]
	}
	return events
}
