package compaction

import (
	"encoding/json"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// FileOps are the files a stretch of conversation touched, from the path argument of its read, write
// and edit tool calls. Summaries list them so the model knows which files it has seen and changed.
type FileOps struct {
	Read    map[string]struct{}
	Written map[string]struct{}
	Edited  map[string]struct{}
}

// NewFileOps returns empty file operations.
func NewFileOps() *FileOps {
	return &FileOps{Read: map[string]struct{}{}, Written: map[string]struct{}{}, Edited: map[string]struct{}{}}
}

// AddMessage records the files of an assistant message's read, write and edit tool calls (calls whose
// arguments have a non-empty string "path"); other messages add nothing.
func (f *FileOps) AddMessage(m provider.Message) {
	a, ok := m.(*provider.AssistantMessage)
	if !ok {
		return
	}
	for i := range a.Content {
		c := &a.Content[i]
		if c.Type != provider.ContentToolCall {
			continue
		}
		var set map[string]struct{}
		switch c.Name {
		case "read":
			set = f.Read
		case "write":
			set = f.Written
		case "edit":
			set = f.Edited
		default:
			continue
		}
		if path := pathArgument(c.Arguments); path != "" {
			set[path] = struct{}{}
		}
	}
}

// pathArgument is the string "path" property of tool-call arguments (the last one, as JSON.parse
// keeps), "" when absent, not a string, or the arguments are not a JSON object. It scans without
// decoding the other properties: file contents of write calls can be large.
func pathArgument(raw json.RawMessage) string {
	p := jsonParser{data: raw}
	p.skipSpace()
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return ""
	}
	p.pos++
	path := ""
	for {
		p.skipSpace()
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			return path
		}
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return ""
		}
		key, err := p.str()
		if err != nil {
			return ""
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return ""
		}
		p.pos++
		p.skipSpace()
		if key == "path" {
			path = ""
			if p.pos < len(p.data) && p.data[p.pos] == '"' {
				if path, err = p.str(); err != nil {
					return ""
				}
			} else if !p.skipValue() {
				return ""
			}
		} else if !p.skipValue() {
			return ""
		}
		p.skipSpace()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
		}
	}
}

// addDetails records the file lists of an earlier summary's details ({readFiles, modifiedFiles}):
// read files as read, modified files as edited. Non-string items are ignored.
func (f *FileOps) addDetails(raw json.RawMessage) {
	var d struct {
		ReadFiles     json.RawMessage `json:"readFiles"`
		ModifiedFiles json.RawMessage `json:"modifiedFiles"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return
	}
	for _, p := range stringItems(d.ReadFiles) {
		f.Read[p] = struct{}{}
	}
	for _, p := range stringItems(d.ModifiedFiles) {
		f.Edited[p] = struct{}{}
	}
}

// stringItems returns the string elements of a JSON array (nothing when raw is not an array).
func stringItems(raw json.RawMessage) []string {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			out = append(out, s)
		}
	}
	return out
}

// Lists returns the files only read and the files modified (edited or written), each sorted as
// JavaScript sorts strings. Both are non-nil.
func (f *FileOps) Lists() (readFiles, modifiedFiles []string) {
	modifiedFiles = make([]string, 0, len(f.Edited)+len(f.Written))
	modified := make(map[string]struct{}, len(f.Edited)+len(f.Written))
	for _, set := range []map[string]struct{}{f.Edited, f.Written} {
		for p := range set {
			if _, dup := modified[p]; !dup {
				modified[p] = struct{}{}
				modifiedFiles = append(modifiedFiles, p)
			}
		}
	}
	readFiles = make([]string, 0, len(f.Read))
	for p := range f.Read {
		if _, ok := modified[p]; !ok {
			readFiles = append(readFiles, p)
		}
	}
	sortJS(readFiles)
	sortJS(modifiedFiles)
	return readFiles, modifiedFiles
}

// FormatFileOperations is the text appended to a summary: a <read-files> and a <modified-files>
// section, each a path per line, each only when it has paths; "" when both are empty.
func FormatFileOperations(readFiles, modifiedFiles []string) string {
	var b strings.Builder
	if len(readFiles) > 0 {
		b.WriteString("\n\n<read-files>\n")
		b.WriteString(strings.Join(readFiles, "\n"))
		b.WriteString("\n</read-files>")
	}
	if len(modifiedFiles) > 0 {
		b.WriteString("\n\n<modified-files>\n")
		b.WriteString(strings.Join(modifiedFiles, "\n"))
		b.WriteString("\n</modified-files>")
	}
	return b.String()
}
