package toolargs

import (
	"strconv"
	"strings"
)

// Validation messages read as pi 0.73.1 writes them: its validator (TypeBox) words errors like AJV
// ("must be string", "must have required properties path", "must be >= 1"); the path is the
// instance location with dots ("edits.0.oldText"), the first missing property for required errors, or
// "root". Errors are listed as TypeBox finds them: per object required, additionalProperties, then the
// properties in the order the model sent them, then the remaining keywords.

type issue struct {
	loc     []string
	missing string // the first missing property of a required error
	message string
	rank    int
}

// path is where pi says the issue is: the instance location with dots ("edits.0.oldText"), with the
// first missing property of a required error appended, or "root".
func (is issue) path() string {
	path := strings.Join(is.loc, ".")
	if is.missing != "" {
		if path == "" {
			return is.missing
		}
		return path + "." + is.missing
	}
	if path == "" {
		return "root"
	}
	return path
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
