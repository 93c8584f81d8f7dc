package toolargs

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// References and the small helpers of schema compilation: JSON pointers into the schema document,
// string lists, the JSON type of a decoded value.

// resolveRef turns a $ref into the JSON pointer of its target in this document.
func (d *schemaDoc) resolveRef(ref string) (string, error) {
	base, frag, hasFrag := strings.Cut(ref, "#")
	if base != "" && base != d.id {
		return "", fmt.Errorf("$ref %q: only references within the schema (\"#/...\") are supported", ref)
	}
	if !hasFrag || frag == "" {
		return "", nil
	}
	if !strings.HasPrefix(frag, "/") {
		return "", fmt.Errorf("$ref %q: anchors are not supported, use a JSON pointer", ref)
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return "", fmt.Errorf("$ref %q: %v", ref, err)
	}
	// Canonical form: the tokens as compile writes them.
	toks := strings.Split(frag[1:], "/")
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(escapePointer(unescapePointer(t)))
	}
	ptr := b.String()
	if _, err := lookupPointer(d.doc, ptr); err != nil {
		return "", fmt.Errorf("$ref %q: %v", ref, err)
	}
	return ptr, nil
}

func unescapePointer(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// lookupPointer finds the value at ptr (escaped tokens, "" for the root) in doc.
func lookupPointer(doc any, ptr string) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	node := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapePointer(tok)
		switch n := node.(type) {
		case map[string]any:
			v, ok := n[tok]
			if !ok {
				return nil, fmt.Errorf("no %q in the schema", ptr)
			}
			node = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, fmt.Errorf("no %q in the schema", ptr)
			}
			node = n[i]
		default:
			return nil, fmt.Errorf("no %q in the schema", ptr)
		}
	}
	return node, nil
}

func stringList(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// stringSet is stringList for arrays whose strings must be distinct (required, dependencies).
func stringSet(v any) ([]string, bool) {
	out, ok := stringList(v)
	if !ok {
		return nil, false
	}
	for i, s := range out {
		if slices.Contains(out[:i], s) {
			return nil, false
		}
	}
	return out, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonTypeName is the JSON type of a decoded value.
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
