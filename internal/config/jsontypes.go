package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// typeProblem is a value of the wrong JSON type at a key path of a file: what the field takes and
// what the file holds, by kind only (a value is never quoted: auth.json holds secrets).
type typeProblem struct {
	path, want, got string
}

func (p typeProblem) String() string {
	return fmt.Sprintf("%s: expected %s, got %s", p.path, p.want, p.got)
}

// checkObject compares a decoded JSON object (encoding/json's map[string]any) with the fields of the
// struct type t, matched by their json tag as the decoder matches them, recursing into nested
// structs and maps. It returns obj with every wrongly typed value removed (obj itself is not
// changed) and the problems in key order. Keys t has no field for are kept and not checked: they
// belong to pi, or to a newer pi-go.
func checkObject(obj map[string]any, t reflect.Type, prefix string) (map[string]any, []typeProblem) {
	fields := jsonFields(t)
	clean := make(map[string]any, len(obj))
	var problems []typeProblem
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		ft, known := fieldType(fields, k)
		if !known {
			clean[k] = v
			continue
		}
		cv, ps, ok := checkValue(v, ft, prefix+k)
		problems = append(problems, ps...)
		if ok {
			clean[k] = cv
		}
	}
	return clean, problems
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	settingKindType = reflect.TypeFor[settingKind]()
)

// checkValue checks one value against type t. ok is false when the value is unusable as a whole;
// otherwise the returned value has its wrongly typed parts removed (entries of a map, keys of an
// object). null is accepted everywhere, as the decoder leaves the field unset.
func checkValue(v any, t reflect.Type, path string) (clean any, problems []typeProblem, ok bool) {
	if v == nil {
		return nil, nil, true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		// The field decodes (and validates) itself: json.RawMessage holds any value (its reader
		// checks it), the settings unions refuse a value of the wrong kind.
		if t == rawMessageType {
			return v, nil, true
		}
		data, err := json.Marshal(v)
		if err == nil {
			err = reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(data)
		}
		if err != nil {
			return nil, []typeProblem{{path, describeType(t), describeJSON(v)}}, false
		}
		return v, nil, true
	}
	bad := func(got string) (any, []typeProblem, bool) {
		return nil, []typeProblem{{path, describeType(t), got}}, false
	}
	switch t.Kind() {
	case reflect.Bool:
		if _, is := v.(bool); !is {
			return bad(describeJSON(v))
		}
	case reflect.String:
		if _, is := v.(string); !is {
			return bad(describeJSON(v))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f, is := v.(float64)
		switch {
		case !is:
			return bad(describeJSON(v))
		case f != math.Trunc(f):
			return bad("a number with a fraction")
		case math.Abs(f) > 1<<53:
			return bad("a number too large")
		}
	case reflect.Float32, reflect.Float64:
		if _, is := v.(float64); !is {
			return bad(describeJSON(v))
		}
	case reflect.Slice:
		list, is := v.([]any)
		if !is {
			return bad(describeJSON(v))
		}
		for i, item := range list {
			if _, ps, itemOK := checkValue(item, t.Elem(), path); !itemOK || len(ps) > 0 {
				return bad(fmt.Sprintf("%s at index %d", describeJSON(item), i))
			}
		}
	case reflect.Map:
		m, is := v.(map[string]any)
		if !is {
			return bad(describeJSON(v))
		}
		kept := make(map[string]any, len(m))
		for _, k := range sortedKeys(m) {
			cv, ps, entryOK := checkValue(m[k], t.Elem(), path+"."+k)
			problems = append(problems, ps...)
			if entryOK {
				kept[k] = cv
			}
		}
		return kept, problems, true
	case reflect.Struct:
		m, is := v.(map[string]any)
		if !is {
			return bad(describeJSON(v))
		}
		kept, ps := checkObject(m, t, path+".")
		return kept, ps, true
	}
	return v, nil, true
}

// jsonFields maps the json names of t's fields to their types (embedded structs' fields included,
// as the decoder promotes them).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			for k, ft := range jsonFields(f.Type) {
				out[k] = ft
			}
			continue
		case name == "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// fieldType finds the field a key decodes into: the exact name, else a case-insensitive match, as
// encoding/json matches keys.
func fieldType(fields map[string]reflect.Type, key string) (reflect.Type, bool) {
	if t, ok := fields[key]; ok {
		return t, true
	}
	for name, t := range fields {
		if strings.EqualFold(name, key) {
			return t, true
		}
	}
	return nil, false
}

// describeType names what a field of type t takes.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(settingKindType) {
		return reflect.Zero(t).Interface().(settingKind).settingKind()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Implements(settingKindType) {
			return "an array whose items are each " + describeType(t.Elem())
		}
		return "an array of " + plural(describeType(t.Elem()))
	}
	return "an object"
}

func plural(kind string) string {
	kind = strings.TrimPrefix(strings.TrimPrefix(kind, "a "), "an ")
	return kind + "s"
}

// describeJSON names the kind of a decoded JSON value.
func describeJSON(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case float64:
		return "a number"
	case []any:
		return "an array"
	}
	return "an object"
}
