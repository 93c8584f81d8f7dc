package toolargs

import (
	"encoding/json"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// checker validates a value against a schema node. In full mode it collects every issue as pi reports
// them; in quick mode (anyOf, oneOf, not, if, contains) it only answers valid or not and stops early.
type checker struct {
	quick  bool
	issues []issue
}

func (c *checker) add(loc []string, message string, rank int) {
	if !c.quick {
		c.issues = append(c.issues, issue{loc: loc, message: message, rank: rank})
	}
}

// matches reports whether v is valid against n, collecting nothing.
func matches(n *schemaNode, v any, loc []string, same []*schemaNode) bool {
	c := checker{quick: true}
	return c.check(n, v, loc, same)
}

// child is loc with one more token; it never shares its array with loc, so issues keep their own.
func child(loc []string, tok string) []string {
	out := make([]string, len(loc)+1)
	copy(out, loc)
	out[len(loc)] = tok
	return out
}

// check validates v (at instance location loc) against n. Like the validator pi-go used before (and
// AJV), a failed type, const, enum or format ends the checks of that schema; everything else is
// checked and reported. same lists the schemas already applied to this value on the way here ($ref,
// allOf, anyOf...): meeting one again is a cycle, which fails.
func (c *checker) check(n *schemaNode, v any, loc []string, same []*schemaNode) bool {
	if n.always != nil {
		if !*n.always {
			c.add(loc, "schema is false", rankOther)
		}
		return *n.always
	}
	if slices.Contains(same, n) {
		c.add(loc, "the schema refers to itself without end", rankOther)
		return false
	}
	// A fresh array: branches must not see each other's entries.
	same = append(same[:len(same):len(same)], n)
	if len(n.types) > 0 && !typeMatches(n.types, v) {
		if len(n.types) == 1 {
			c.add(loc, "must be "+n.types[0], rankType)
		} else {
			c.add(loc, "must be either "+strings.Join(n.types, " or "), rankType)
		}
		return false
	}
	if n.hasConst && !jsonEqual(v, n.constVal) {
		c.add(loc, "must be equal to constant", rankConst)
		return false
	}
	if n.hasEnum && !inEnum(v, n.enum) {
		c.add(loc, "must be equal to one of the allowed values", rankEnum)
		return false
	}
	if n.checkFmt != nil {
		if s, ok := v.(string); ok && !n.checkFmt(s) {
			c.add(loc, `must match format "`+n.format+`"`, rankFormat)
			return false
		}
	}
	ok := true
	if n.ref != nil {
		ok = c.check(n.ref, v, loc, same)
		if !ok && c.quick {
			return false
		}
	}
	switch x := v.(type) {
	case map[string]any:
		ok = c.object(n, x, loc, same) && ok
	case []any:
		ok = c.array(n, x, loc, same) && ok
	case string:
		ok = c.str(n, x, loc) && ok
	case json.Number:
		ok = c.number(n, x, loc) && ok
	}
	if !ok && c.quick {
		return false
	}
	return c.combined(n, v, loc, same) && ok
}

func (c *checker) object(n *schemaNode, obj map[string]any, loc []string, same []*schemaNode) bool {
	ok := true
	fail := func(message string, rank int) {
		ok = false
		c.add(loc, message, rank)
	}
	if n.minProps >= 0 && len(obj) < n.minProps {
		fail("must not have fewer than "+strconv.Itoa(n.minProps)+" properties", rankMinProperties)
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		fail("must not have more than "+strconv.Itoa(n.maxProps)+" properties", rankMaxProperties)
	}
	if missing := missingProps(obj, n.required); len(missing) > 0 {
		ok = false
		if !c.quick {
			// The path names the first missing property (pi's formatValidationPath).
			c.issues = append(c.issues, issue{loc: loc, missing: missing[0],
				message: "must have required properties " + strings.Join(missing, ", "), rank: rankRequired})
		}
	}
	if !ok && c.quick {
		return false
	}
	for _, dep := range n.dependencies {
		if _, present := obj[dep.prop]; !present {
			continue
		}
		if dep.schema != nil {
			ok = c.check(dep.schema, obj, loc, same) && ok
		} else if missing := missingProps(obj, dep.required); len(missing) > 0 {
			fail("must have properties "+strings.Join(missing, ", ")+" when property "+dep.prop+" is present", rankDependencies)
		}
		if !ok && c.quick {
			return false
		}
	}
	keys := sortedKeys(obj)
	extra := false
	for _, k := range keys {
		val := obj[k]
		evaluated := false
		if sch, found := n.properties[k]; found {
			evaluated = true
			ok = c.check(sch, val, child(loc, k), nil) && ok
		}
		for _, p := range n.patternProps {
			if p.re.MatchString(k) {
				evaluated = true
				ok = c.check(p.sch, val, child(loc, k), nil) && ok
			}
		}
		if !evaluated {
			if n.additionalFalse {
				extra = true
			} else if n.additional != nil {
				ok = c.check(n.additional, val, child(loc, k), nil) && ok
			}
		}
		if !ok && c.quick {
			return false
		}
	}
	if extra {
		fail("must not have additional properties", rankAdditionalProperties)
	}
	if n.propertyNames != nil {
		for _, k := range keys {
			if !matches(n.propertyNames, k, loc, nil) {
				fail("property names "+k+" are invalid", rankPropertyNames)
				if c.quick {
					return false
				}
			}
		}
	}
	return ok
}

func missingProps(obj map[string]any, required []string) []string {
	var missing []string
	for _, name := range required {
		if _, ok := obj[name]; !ok {
			missing = append(missing, name)
		}
	}
	return missing
}

func (c *checker) array(n *schemaNode, arr []any, loc []string, same []*schemaNode) bool {
	ok := true
	fail := func(message string, rank int) {
		ok = false
		c.add(loc, message, rank)
	}
	if n.minItems >= 0 && len(arr) < n.minItems {
		fail("must not have fewer than "+strconv.Itoa(n.minItems)+" items", rankMinItems)
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		fail("must not have more than "+strconv.Itoa(n.maxItems)+" items", rankMaxItems)
	}
	if n.uniqueItems && hasDuplicates(arr) {
		fail("must not have duplicate items", rankUniqueItems)
	}
	if !ok && c.quick {
		return false
	}
	for i, item := range arr {
		var sch *schemaNode
		if i < len(n.prefixItems) {
			sch = n.prefixItems[i]
		} else if n.items != nil {
			sch = n.items
		} else {
			break
		}
		ok = c.check(sch, item, child(loc, strconv.Itoa(i)), nil) && ok
		if !ok && c.quick {
			return false
		}
	}
	if n.additionalItemsFalse && len(arr) > len(n.prefixItems) {
		fail("last "+strconv.Itoa(len(arr)-len(n.prefixItems))+" additionalItem(s) not allowed", rankOther)
	}
	if n.contains != nil {
		found := false
		for i, item := range arr {
			if matches(n.contains, item, child(loc, strconv.Itoa(i)), nil) {
				found = true
				break
			}
		}
		if !found {
			fail("must contain at least 1 valid item", rankContains)
		}
	}
	return ok
}

func (c *checker) str(n *schemaNode, s string, loc []string) bool {
	ok := true
	fail := func(message string, rank int) {
		ok = false
		c.add(loc, message, rank)
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		length := utf8.RuneCountInString(s)
		if n.minLength >= 0 && length < n.minLength {
			fail("must not have fewer than "+strconv.Itoa(n.minLength)+" characters", rankMinLength)
		}
		if n.maxLength >= 0 && length > n.maxLength {
			fail("must not have more than "+strconv.Itoa(n.maxLength)+" characters", rankMaxLength)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		fail(`must match pattern "`+n.pattern.String()+`"`, rankPattern)
	}
	return ok
}

func (c *checker) number(n *schemaNode, num json.Number, loc []string) bool {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil && n.multipleOf == nil {
		return true
	}
	r, valid := new(big.Rat).SetString(string(num))
	if !valid {
		c.add(loc, "must be number", rankType)
		return false
	}
	ok := true
	fail := func(message string, rank int) {
		ok = false
		c.add(loc, message, rank)
	}
	if n.minimum != nil && r.Cmp(n.minimum.rat) < 0 {
		fail("must be >= "+n.minimum.text, rankMinimum)
	}
	if n.maximum != nil && r.Cmp(n.maximum.rat) > 0 {
		fail("must be <= "+n.maximum.text, rankMaximum)
	}
	if n.exclusiveMinimum != nil && r.Cmp(n.exclusiveMinimum.rat) <= 0 {
		fail("must be > "+n.exclusiveMinimum.text, rankExclusiveMinimum)
	}
	if n.exclusiveMaximum != nil && r.Cmp(n.exclusiveMaximum.rat) >= 0 {
		fail("must be < "+n.exclusiveMaximum.text, rankExclusiveMaximum)
	}
	if n.multipleOf != nil && !new(big.Rat).Quo(r, n.multipleOf.rat).IsInt() {
		fail("must be multiple of "+n.multipleOf.text, rankMultipleOf)
	}
	return ok
}

// combined checks the keywords that apply other schemas to the same value: not, allOf, anyOf, oneOf,
// if/then/else. anyOf and oneOf are reported as themselves, not through every branch's failures.
func (c *checker) combined(n *schemaNode, v any, loc []string, same []*schemaNode) bool {
	ok := true
	if n.not != nil && matches(n.not, v, loc, same) {
		ok = false
		c.add(loc, "must not be valid", rankNot)
		if c.quick {
			return false
		}
	}
	for _, sch := range n.allOf {
		ok = c.check(sch, v, loc, same) && ok
		if !ok && c.quick {
			return false
		}
	}
	if len(n.anyOf) > 0 {
		found := false
		for _, sch := range n.anyOf {
			if matches(sch, v, loc, same) {
				found = true
				break
			}
		}
		if !found {
			ok = false
			c.add(loc, "must match a schema in anyOf", rankAnyOf)
			if c.quick {
				return false
			}
		}
	}
	if len(n.oneOf) > 0 {
		matched := 0
		for _, sch := range n.oneOf {
			if matches(sch, v, loc, same) {
				if matched++; matched > 1 {
					break
				}
			}
		}
		if matched != 1 {
			ok = false
			c.add(loc, "must match exactly one schema in oneOf", rankOneOf)
			if c.quick {
				return false
			}
		}
	}
	if n.ifS != nil {
		if matches(n.ifS, v, loc, same) {
			if n.thenS != nil {
				ok = c.check(n.thenS, v, loc, same) && ok
			}
		} else if n.elseS != nil {
			ok = c.check(n.elseS, v, loc, same) && ok
		}
	}
	return ok
}

// typeMatches reports whether v is of one of the JSON types; an integral number is an integer.
func typeMatches(types []string, v any) bool {
	got := jsonTypeName(v)
	for _, t := range types {
		if t == got || (t == "integer" && got == "number" && isIntegral(v)) {
			return true
		}
	}
	return false
}

func isIntegral(v any) bool {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		return ok && r.IsInt()
	case float64:
		return isInteger(x)
	}
	return false
}

func inEnum(v any, values []any) bool {
	for _, e := range values {
		if jsonEqual(v, e) {
			return true
		}
	}
	return false
}

// jsonEqual compares decoded JSON values; numbers compare by value (1 equals 1.0).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number, float64:
		ra, okA := numberRat(a)
		rb, okB := numberRat(b)
		return okA && okB && ra.Cmp(rb) == 0
	}
	return false
}

func numberRat(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(x))
	case float64:
		r := new(big.Rat).SetFloat64(x) // nil for NaN and infinities
		return r, r != nil
	}
	return nil, false
}

// hasDuplicates reports whether two items of arr are equal JSON values.
func hasDuplicates(arr []any) bool {
	seen := make(map[string]bool, len(arr))
	var b strings.Builder
	for _, item := range arr {
		b.Reset()
		canonicalJSON(&b, item)
		k := b.String()
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// canonicalJSON writes v so that equal JSON values (jsonEqual) write the same text: object keys sorted,
// numbers as exact fractions.
func canonicalJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonicalJSON(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			canonicalJSON(b, e)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(strconv.Quote(x))
	case json.Number, float64:
		if r, ok := numberRat(x); ok {
			b.WriteString(r.RatString())
		} else {
			b.WriteString("NaN")
		}
	case bool:
		b.WriteString(strconv.FormatBool(x))
	default:
		b.WriteString("null")
	}
}

// sortIssues orders issues as pi lists them (see issueLess).
func sortIssues(issues []issue, order keyOrder) {
	sort.SliceStable(issues, func(i, j int) bool { return issueLess(issues[i], issues[j], order) })
}
