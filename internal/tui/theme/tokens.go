package theme

// Key names one colour role of a theme (pi 1.6's 51 theme tokens, in its order).
type Key int

const (
	Accent Key = iota
	Border
	BorderAccent
	BorderMuted
	Success
	Error
	Warning
	Muted
	Dim
	Text
	ThinkingText
	ScrollbarTrack
	ScrollbarThumb
	SelectedBg
	SearchMatchBg
	SearchMatchText
	UserMessageBg
	UserMessageText
	CustomMessageBg
	CustomMessageText
	CustomMessageLabel
	ToolPendingBg
	ToolSuccessBg
	ToolErrorBg
	ToolTitle
	ToolOutput
	MdHeading
	MdLink
	MdLinkURL
	MdCode
	MdCodeBlock
	MdCodeBlockBorder
	MdQuote
	MdQuoteBorder
	MdHr
	MdListBullet
	ToolDiffAdded
	ToolDiffRemoved
	ToolDiffContext
	SyntaxComment
	SyntaxKeyword
	SyntaxFunction
	SyntaxVariable
	SyntaxString
	SyntaxNumber
	SyntaxType
	SyntaxOperator
	SyntaxPunctuation
	ThinkingOff
	ThinkingMinimal
	ThinkingLow
	ThinkingMedium
	ThinkingHigh
	ThinkingXHigh
	ThinkingMax
	BashMode
	numKeys
)

// token describes a Key as theme files name it.
type token struct {
	name       string
	background bool
	// fallback is the key whose colour an omitted optional token takes; -1 for a required token.
	fallback Key
}

var tokens = [numKeys]token{
	Accent: {"accent", false, -1}, Border: {"border", false, -1}, BorderAccent: {"borderAccent", false, -1},
	BorderMuted: {"borderMuted", false, -1}, Success: {"success", false, -1}, Error: {"error", false, -1},
	Warning: {"warning", false, -1}, Muted: {"muted", false, -1}, Dim: {"dim", false, -1}, Text: {"text", false, -1},
	ThinkingText:    {"thinkingText", false, -1},
	ScrollbarTrack:  {"scrollbarTrack", false, Muted},
	ScrollbarThumb:  {"scrollbarThumb", false, Text},
	SelectedBg:      {"selectedBg", true, -1},
	SearchMatchBg:   {"searchMatchBg", true, SelectedBg},
	SearchMatchText: {"searchMatchText", false, Text},
	UserMessageBg:   {"userMessageBg", true, -1}, UserMessageText: {"userMessageText", false, -1},
	CustomMessageBg: {"customMessageBg", true, -1}, CustomMessageText: {"customMessageText", false, -1},
	CustomMessageLabel: {"customMessageLabel", false, -1},
	ToolPendingBg:      {"toolPendingBg", true, -1}, ToolSuccessBg: {"toolSuccessBg", true, -1},
	ToolErrorBg: {"toolErrorBg", true, -1}, ToolTitle: {"toolTitle", false, -1}, ToolOutput: {"toolOutput", false, -1},
	MdHeading: {"mdHeading", false, -1}, MdLink: {"mdLink", false, -1}, MdLinkURL: {"mdLinkUrl", false, -1},
	MdCode: {"mdCode", false, -1}, MdCodeBlock: {"mdCodeBlock", false, -1},
	MdCodeBlockBorder: {"mdCodeBlockBorder", false, -1}, MdQuote: {"mdQuote", false, -1},
	MdQuoteBorder: {"mdQuoteBorder", false, -1}, MdHr: {"mdHr", false, -1}, MdListBullet: {"mdListBullet", false, -1},
	ToolDiffAdded: {"toolDiffAdded", false, -1}, ToolDiffRemoved: {"toolDiffRemoved", false, -1},
	ToolDiffContext: {"toolDiffContext", false, -1},
	SyntaxComment:   {"syntaxComment", false, -1}, SyntaxKeyword: {"syntaxKeyword", false, -1},
	SyntaxFunction: {"syntaxFunction", false, -1}, SyntaxVariable: {"syntaxVariable", false, -1},
	SyntaxString: {"syntaxString", false, -1}, SyntaxNumber: {"syntaxNumber", false, -1},
	SyntaxType: {"syntaxType", false, -1}, SyntaxOperator: {"syntaxOperator", false, -1},
	SyntaxPunctuation: {"syntaxPunctuation", false, -1},
	ThinkingOff:       {"thinkingOff", false, -1}, ThinkingMinimal: {"thinkingMinimal", false, -1},
	ThinkingLow: {"thinkingLow", false, -1}, ThinkingMedium: {"thinkingMedium", false, -1},
	ThinkingHigh: {"thinkingHigh", false, -1}, ThinkingXHigh: {"thinkingXhigh", false, -1},
	ThinkingMax: {"thinkingMax", false, ThinkingXHigh},
	BashMode:    {"bashMode", false, -1},
}

// Count is the number of keys (Key(0).Count() iterates them all).
func (Key) Count() Key { return numKeys }

// Name is the key's name in theme files ("accent", "mdLinkUrl", ...).
func (k Key) Name() string { return tokens[k].name }

// KeyByName finds the key a theme file calls name.
func KeyByName(name string) (Key, bool) {
	for k, t := range tokens {
		if t.name == name {
			return Key(k), true
		}
	}
	return 0, false
}

// ThinkingKey is the colour key of a thinking level's editor border ("off", "minimal", ... "xhigh",
// "max").
func ThinkingKey(level string) Key {
	switch level {
	case "minimal":
		return ThinkingMinimal
	case "low":
		return ThinkingLow
	case "medium":
		return ThinkingMedium
	case "high":
		return ThinkingHigh
	case "xhigh":
		return ThinkingXHigh
	case "max":
		return ThinkingMax
	default:
		return ThinkingOff
	}
}
