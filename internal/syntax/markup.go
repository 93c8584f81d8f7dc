package syntax

import "strings"

// Lexers for HTML, XML and CSS.

// lexMarkup colours HTML and XML: tags (brackets as punctuation, names as keywords), attributes,
// their values, comments, declarations; a <script> or <style> element's content is JavaScript or
// CSS.
func lexMarkup(code string, t *tokens) {
	for p := 0; p < len(code); {
		lt := strings.IndexByte(code[p:], '<')
		if lt < 0 {
			break
		}
		p += lt
		t.add(ClassPlain, p)
		switch {
		case strings.HasPrefix(code[p:], "<!--"):
			p = spanTo(code, p+4, "-->")
			t.add(ClassComment, p)
		case strings.HasPrefix(code[p:], "<![CDATA["):
			p = spanTo(code, p+9, "]]>")
			t.add(ClassString, p)
		case strings.HasPrefix(code[p:], "<!") || strings.HasPrefix(code[p:], "<?"):
			p = spanTo(code, p+2, ">")
			t.add(ClassMeta, p)
		case p+1 < len(code) && (isIdentStart(code[p+1]) || code[p+1] == '/'):
			var name string
			p, name = markupTag(code, p, t)
			if name == "script" || name == "style" {
				closeTag := strings.Index(strings.ToLower(code[p:]), "</"+name)
				if closeTag < 0 {
					closeTag = len(code) - p
				}
				inner := lexerFor("javascript")
				if name == "style" {
					inner = lexCSS
				}
				lexAt(inner, code, p, p+closeTag, t)
				p += closeTag
			}
		default:
			p++
			t.add(ClassPlain, p)
		}
	}
	t.add(ClassPlain, len(code))
}

// spanTo is the end of a construct that closes with close, searched from p (the end of code when it
// does not close).
func spanTo(code string, p int, close string) int {
	if e := strings.Index(code[p:], close); e >= 0 {
		return p + e + len(close)
	}
	return len(code)
}

// markupTag colours the tag starting at p ("<name attr=...>") and returns its end and its lower
// case name ("" for a closing tag).
func markupTag(code string, p int, t *tokens) (int, string) {
	closing := code[p+1] == '/'
	p++
	if closing {
		p++
	}
	t.add(ClassPunct, p)
	e := p
	for e < len(code) && (isIdentByte(code[e]) || strings.IndexByte("-:.", code[e]) >= 0) {
		e++
	}
	name := strings.ToLower(code[p:e])
	t.add(ClassKeyword, e)
	p = e
	for p < len(code) {
		c := code[p]
		switch {
		case c == '>':
			t.add(ClassPunct, p+1)
			if closing {
				name = ""
			}
			return p + 1, name
		case c == '/' && p+1 < len(code) && code[p+1] == '>':
			t.add(ClassPunct, p+2)
			return p + 2, ""
		case c == '"' || c == '\'':
			q := strings.IndexByte(code[p+1:], c)
			if q < 0 {
				t.add(ClassString, len(code))
				return len(code), ""
			}
			t.add(ClassString, p+1+q+1)
			p += q + 2
		case c == '=':
			t.add(ClassOperator, p+1)
			p++
			if p < len(code) && code[p] != '"' && code[p] != '\'' && code[p] != ' ' {
				v := p
				for v < len(code) && code[v] != ' ' && code[v] != '>' && code[v] != '\n' {
					v++
				}
				t.add(ClassString, v)
				p = v
			}
		case isIdentStart(c):
			a := p
			for a < len(code) && (isIdentByte(code[a]) || strings.IndexByte("-:.@", code[a]) >= 0) {
				a++
			}
			t.add(ClassVariable, a)
			p = a
		case c == '<':
			return p, "" // an unclosed tag
		default:
			p++
			t.add(ClassPlain, p)
		}
	}
	return p, ""
}

// lexCSS colours CSS (and SCSS, Less): selectors (elements as keywords, classes and ids as types,
// pseudo-classes as functions), at-rules, property names, and values by kind.
func lexCSS(code string, t *tokens) {
	depth := 0
	for p := 0; p < len(code); {
		c := code[p]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p++
			t.add(ClassPlain, p)
		case strings.HasPrefix(code[p:], "/*"):
			p = spanTo(code, p+2, "*/")
			t.add(ClassComment, p)
		case strings.HasPrefix(code[p:], "//") && (p == 0 || strings.IndexByte(" \t\n;{}", code[p-1]) >= 0):
			p = lineEnd(code, p)
			t.add(ClassComment, p)
		case c == '{':
			depth++
			p++
			t.add(ClassPunct, p)
		case c == '}':
			depth = max(depth-1, 0)
			p++
			t.add(ClassPunct, p)
		case c == '@':
			e := p + 1
			for e < len(code) && (isIdentByte(code[e]) || code[e] == '-') {
				e++
			}
			t.add(ClassKeyword, e)
			p = cssValue(code, e, t)
		case depth > 0 && isDeclaration(code, p):
			colon := p + strings.IndexByte(code[p:], ':')
			t.add(ClassVariable, colon)
			t.add(ClassPunct, colon+1)
			p = cssValue(code, colon+1, t)
		default:
			p = cssSelector(code, p, t)
		}
	}
}

// isDeclaration reports whether a property declaration ("color: red;") starts at p: a name and a
// colon before any "{" (which would make it a nested selector such as "a:hover {").
func isDeclaration(code string, p int) bool {
	for i := p; i < len(code); i++ {
		switch code[i] {
		case ':':
			for j := i + 1; j < len(code); j++ {
				switch code[j] {
				case '{':
					return false
				case ';', '}', '\n':
					return true
				}
			}
			return true
		case '{', '}', ';':
			return false
		}
	}
	return false
}

// cssValue colours a value (or an at-rule's prelude) from p up to ";", "{" or "}" and returns where
// it stopped.
func cssValue(code string, p int, t *tokens) int {
	for p < len(code) {
		c := code[p]
		switch {
		case c == ';':
			t.add(ClassPunct, p+1)
			return p + 1
		case c == ',' || c == '(' || c == ')':
			p++
			t.add(ClassPunct, p)
		case c == '{' || c == '}':
			return p
		case strings.HasPrefix(code[p:], "/*"):
			p = spanTo(code, p+2, "*/")
			t.add(ClassComment, p)
		case c == '"' || c == '\'':
			p = scanString(code, p+1, strDef{close: string(c), escape: true})
			t.add(ClassString, p)
		case c == '#' && p+1 < len(code) && isIdentByte(code[p+1]):
			e := p + 1
			for e < len(code) && isIdentByte(code[e]) {
				e++
			}
			t.add(ClassNumber, e)
			p = e
		case isDigit(c) || c == '.' && p+1 < len(code) && isDigit(code[p+1]) ||
			c == '-' && p+1 < len(code) && (isDigit(code[p+1]) || code[p+1] == '.'):
			e := numberEnd(code, p+1)
			if e < len(code) && code[e] == '%' {
				e++
			}
			t.add(ClassNumber, e)
			p = e
		case c == '!':
			e := p + 1
			for e < len(code) && isIdentByte(code[e]) {
				e++
			}
			t.add(ClassKeyword, e)
			p = e
		case c == '$' || c == '@' || c == '-' && p+1 < len(code) && code[p+1] == '-':
			e := p + 1
			for e < len(code) && (isIdentByte(code[e]) || code[e] == '-') {
				e++
			}
			t.add(ClassVariable, e)
			p = e
		case isIdentStart(c) || c == '-':
			e := p + 1
			for e < len(code) && (isIdentByte(code[e]) || code[e] == '-') {
				e++
			}
			if e < len(code) && code[e] == '(' {
				t.add(ClassFunction, e)
			} else {
				t.add(ClassPlain, e)
			}
			p = e
		default:
			p++
			t.add(ClassPlain, p)
		}
	}
	return p
}

// cssSelector colours a selector up to "{" or the end of its line.
func cssSelector(code string, p int, t *tokens) int {
	for p < len(code) {
		c := code[p]
		switch {
		case c == '{' || c == '}' || c == '\n':
			return p
		case c == '.' || c == '#' || c == ':' || c == '&' || isIdentStart(c) || c == '-' || c == '*':
			class := ClassKeyword
			e := p
			switch c {
			case '.', '#':
				class = ClassType
				e++
			case ':':
				class = ClassFunction
				for e < len(code) && code[e] == ':' {
					e++
				}
			case '&', '*':
				class = ClassOperator
				e++
			}
			for e < len(code) && (isIdentByte(code[e]) || code[e] == '-') {
				e++
			}
			t.add(class, max(e, p+1))
			p = max(e, p+1)
		case c == '[':
			e := spanTo(code, p, "]")
			t.add(ClassVariable, e)
			p = e
		case c == '>' || c == '+' || c == '~' || c == ',':
			p++
			t.add(ClassOperator, p)
		case c == '(' || c == ')':
			p++
			t.add(ClassPunct, p)
		default:
			p++
			t.add(ClassPlain, p)
		}
	}
	return p
}
