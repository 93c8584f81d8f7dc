package loop

import (
	"math/big"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validation messages read as pi 0.73.1 writes them: its validator (TypeBox) words errors like AJV
// ("must be string", "must have required properties path", "must be >= 1"); the path is the
// instance location with dots ("edits.0.oldText"), the first missing property for required errors, or
// "root". Errors are listed as TypeBox finds them: per object required, additionalProperties, then the
// properties in the order the model sent them, then the remaining keywords.

type issue struct {
	loc     []string
	path    string
	message string
	rank    int
}

// Keyword ranks follow the order in which TypeBox checks keywords; rankProperties and rankItems are
// where the errors of an object's properties or an array's items fall.
const (
	rankType = iota
	rankRequired
	rankAdditionalProperties
	rankDependencies
	rankProperties
	rankPropertyNames
	rankMinProperties
	rankMaxProperties
	rankAdditionalItems
	rankContains
	rankItems
	rankMaxItems
	rankMinItems
	rankUniqueItems
	rankFormat
	rankMaxLength
	rankMinLength
	rankPattern
	rankExclusiveMaximum
	rankExclusiveMinimum
	rankMaximum
	rankMinimum
	rankMultipleOf
	rankConst
	rankEnum
	rankNot
	rankAnyOf
	rankOneOf
	rankOther
)

func validationIssues(ve *jsonschema.ValidationError, doc any, order keyOrder) []issue {
	var leaves []*jsonschema.ValidationError
	collectLeaves(ve, &leaves)
	issues := make([]issue, 0, len(leaves))
	for _, e := range leaves {
		msg, rank := describe(e, doc)
		path := strings.Join(e.InstanceLocation, ".")
		if req, ok := e.ErrorKind.(*kind.Required); ok && len(req.Missing) > 0 {
			if path == "" {
				path = req.Missing[0]
			} else {
				path += "." + req.Missing[0]
			}
		}
		if path == "" {
			path = "root"
		}
		issues = append(issues, issue{loc: e.InstanceLocation, path: path, message: msg, rank: rank})
	}
	sort.SliceStable(issues, func(i, j int) bool { return issueLess(issues[i], issues[j], order) })
	return issues
}

// collectLeaves flattens the error tree to the errors that say something about the value. anyOf and
// oneOf are reported as themselves, not through the failures of every branch.
func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	switch e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				collectLeaves(c, out)
			}
			return
		}
	}
	*out = append(*out, e)
}

func issueLess(a, b issue, order keyOrder) bool {
	n := min(len(a.loc), len(b.loc))
	for i := range n {
		if a.loc[i] != b.loc[i] {
			ptr := pointer(a.loc[:i])
			return childIndex(order, ptr, a.loc[i]) < childIndex(order, ptr, b.loc[i])
		}
	}
	switch {
	case len(a.loc) == len(b.loc):
		return a.rank < b.rank
	case len(a.loc) < len(b.loc):
		// a is about an ancestor of b's value: it comes first if its keyword is checked before the
		// children are.
		return a.rank < childRank(order, a.loc)
	default:
		return childRank(order, b.loc) <= b.rank
	}
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

func childIndex(order keyOrder, ptr, tok string) int {
	if keys, ok := order[ptr]; ok {
		for i, k := range keys {
			if k == tok {
				return i
			}
		}
		return len(keys)
	}
	i, _ := strconv.Atoi(tok)
	return i
}

func childRank(order keyOrder, loc []string) int {
	if _, isObject := order[pointer(loc)]; isObject {
		return rankProperties
	}
	return rankItems
}

var englishPrinter = message.NewPrinter(language.English)

// describe words one error as pi does and gives its keyword rank.
func describe(e *jsonschema.ValidationError, doc any) (string, int) {
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		want := declaredTypes(doc, e.SchemaURL)
		if len(want) == 0 {
			want = k.Want
		}
		if len(want) == 1 {
			return "must be " + want[0], rankType
		}
		return "must be either " + strings.Join(want, " or "), rankType
	case *kind.Required:
		return "must have required properties " + strings.Join(k.Missing, ", "), rankRequired
	case *kind.AdditionalProperties:
		return "must not have additional properties", rankAdditionalProperties
	case *kind.Dependency:
		return "must have properties " + strings.Join(k.Missing, ", ") + " when property " + k.Prop + " is present", rankDependencies
	case *kind.DependentRequired:
		return "must have properties " + strings.Join(k.Missing, ", ") + " when property " + k.Prop + " is present", rankDependencies
	case *kind.PropertyNames:
		return "property names " + k.Property + " are invalid", rankPropertyNames
	case *kind.MinProperties:
		return "must not have fewer than " + strconv.Itoa(k.Want) + " properties", rankMinProperties
	case *kind.MaxProperties:
		return "must not have more than " + strconv.Itoa(k.Want) + " properties", rankMaxProperties
	case *kind.Contains:
		return "must contain at least 1 valid item", rankContains
	case *kind.MinItems:
		return "must not have fewer than " + strconv.Itoa(k.Want) + " items", rankMinItems
	case *kind.MaxItems:
		return "must not have more than " + strconv.Itoa(k.Want) + " items", rankMaxItems
	case *kind.UniqueItems:
		return "must not have duplicate items", rankUniqueItems
	case *kind.Format:
		return `must match format "` + k.Want + `"`, rankFormat
	case *kind.MinLength:
		return "must not have fewer than " + strconv.Itoa(k.Want) + " characters", rankMinLength
	case *kind.MaxLength:
		return "must not have more than " + strconv.Itoa(k.Want) + " characters", rankMaxLength
	case *kind.Pattern:
		return `must match pattern "` + k.Want + `"`, rankPattern
	case *kind.Minimum:
		return "must be >= " + ratString(k.Want), rankMinimum
	case *kind.Maximum:
		return "must be <= " + ratString(k.Want), rankMaximum
	case *kind.ExclusiveMinimum:
		return "must be > " + ratString(k.Want), rankExclusiveMinimum
	case *kind.ExclusiveMaximum:
		return "must be < " + ratString(k.Want), rankExclusiveMaximum
	case *kind.MultipleOf:
		return "must be multiple of " + ratString(k.Want), rankMultipleOf
	case *kind.Const:
		return "must be equal to constant", rankConst
	case *kind.Enum:
		return "must be equal to one of the allowed values", rankEnum
	case *kind.Not:
		return "must not be valid", rankNot
	case *kind.AnyOf:
		return "must match a schema in anyOf", rankAnyOf
	case *kind.OneOf:
		return "must match exactly one schema in oneOf", rankOneOf
	case *kind.FalseSchema:
		return "schema is false", rankOther
	}
	return e.ErrorKind.LocalizedString(englishPrinter), rankOther
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "null"
	}
	f, _ := r.Float64()
	return jsNumberString(f)
}

// declaredTypes reads the "type" keyword of the schema at location (a URL whose fragment is a JSON
// pointer into doc), in the order the schema lists them.
func declaredTypes(doc any, location string) []string {
	_, frag, _ := strings.Cut(location, "#")
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil
	}
	node := doc
	if frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch n := node.(type) {
			case map[string]any:
				node = n[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(n) {
					return nil
				}
				node = n[i]
			default:
				return nil
			}
		}
	}
	s, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	return schemaTypes(s)
}
