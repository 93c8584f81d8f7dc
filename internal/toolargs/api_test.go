package toolargs

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestCompileReportsForeignSchemaErrors(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"object"`:                              "unexpected EOF",
		`{"properties":{"n":{"minimum":"1"}}}`:          `at "/properties/n/minimum": must be a number`,
		`{"type":"object"} {}`:                          "unexpected data after the schema",
		`{"items":[{"type":"string"}],"prefixItems":5}`: "", // draft-07 by its items: prefixItems is not a keyword there
	} {
		_, err := Compile(json.RawMessage(schema))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", schema, err)
		case want != "" && (err == nil || err.Error() != want):
			t.Errorf("%s: error %v, want %s", schema, err, want)
		}
	}
	for _, empty := range []string{``, ` `, `null`} {
		s, err := Compile(json.RawMessage(empty))
		if err != nil {
			t.Fatalf("%q: %v", empty, err)
		}
		if got, err := s.Validate("t", json.RawMessage(`{"a":1}`)); err != nil || string(got) != `{"a":1}` {
			t.Errorf("%q accepts %s %v", empty, got, err)
		}
	}
}

func TestSchemaValidate(t *testing.T) {
	s, err := Compile(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Validate("t", json.RawMessage(`{"n":"3"}`)); err != nil || string(got) != `{"n":3}` {
		t.Errorf("coerced %s %v", got, err)
	}
	if got, err := s.Validate("t", nil); err == nil || !strings.HasPrefix(err.Error(), "Validation failed for tool \"t\":\n  - n: must have required properties n") {
		t.Errorf("empty arguments: %s %v", got, err)
	}
	if _, err := s.Validate("t", json.RawMessage(`{"n":`)); err == nil || !strings.HasPrefix(err.Error(), `Invalid arguments for tool "t": `) {
		t.Errorf("broken arguments: %v", err)
	}
}

// TestCacheConcurrentCalls validates from many goroutines at once, through union branches (which look
// compiled nodes up while coercing) and while other schemas are being compiled; run it with -race.
func TestCacheConcurrentCalls(t *testing.T) {
	var c Cache
	union := `{"type":"object","properties":{"v":{"anyOf":[{"type":"number"},{"type":"boolean"}]}}}`
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				got, err := c.Validate("t", json.RawMessage(union), json.RawMessage(`{"v":"true"}`))
				if err != nil || string(got) != `{"v":true}` {
					errs <- fmt.Errorf("union: %s %v", got, err)
					return
				}
				own := fmt.Sprintf(`{"type":"object","properties":{"g%d":{"type":"integer","maximum":%d}}}`, g, i)
				if _, err := c.Validate("t", json.RawMessage(own), json.RawMessage(fmt.Sprintf(`{"g%d":%d}`, g, i+1))); err == nil {
					errs <- fmt.Errorf("schema %s accepted %d", own, i+1)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// FuzzCompileValidate feeds arbitrary schemas and arguments through the API extensions and MCP servers
// reach: whatever they send is an error or a result, never a panic.
func FuzzCompileValidate(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"1"}`},
		{`{"$defs":{"x":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`, `{}`},
		{`{"anyOf":[{"type":"object","properties":{"a":{"oneOf":[{"type":"null"},{"type":"array","items":[{"type":"string"}]}]}}}]}`, `{"a":[1]}`},
		{`{"items":[true],"additionalItems":{"type":"number"},"dependencies":{"a":["b"]},"if":false,"else":{"not":{}}}`, `[1,"2"]`},
		{`{"patternProperties":{"^x":{"format":"date"}},"propertyNames":{"maxLength":3},"uniqueItems":true}`, `{"xa":"2024-01-01"}`},
		{`{"exclusiveMinimum":true,"minimum":1,"multipleOf":0.5,"enum":[1.5,2]}`, `1.5`},
		{`true`, ``},
		{`5`, `{}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		s, err := Compile(json.RawMessage(schema))
		if err != nil {
			return
		}
		got, err := s.Validate("t", json.RawMessage(args))
		if err == nil && !json.Valid(got) {
			t.Fatalf("schema %s args %s: invalid output %s", schema, args, got)
		}
	})
}
