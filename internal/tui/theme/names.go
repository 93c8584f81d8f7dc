package theme

import "github.com/muesli/termenv"

// keyNames are pi's names of the palette keys, as its theme files and HTML export spell them.
var keyNames = [numKeys]string{
	Accent: "accent", Border: "border", BorderAccent: "borderAccent", BorderMuted: "borderMuted",
	Success: "success", Error: "error", Warning: "warning", Muted: "muted", Dim: "dim", Text: "text",
	ThinkingText: "thinkingText", SelectedBg: "selectedBg", UserMessageBg: "userMessageBg",
	UserMessageText: "userMessageText", CustomMessageBg: "customMessageBg", CustomMessageText: "customMessageText",
	CustomMessageLabel: "customMessageLabel", ToolPendingBg: "toolPendingBg", ToolSuccessBg: "toolSuccessBg",
	ToolErrorBg: "toolErrorBg", ToolTitle: "toolTitle", ToolOutput: "toolOutput", MdHeading: "mdHeading",
	MdLink: "mdLink", MdLinkURL: "mdLinkUrl", MdCode: "mdCode", MdCodeBlock: "mdCodeBlock",
	MdCodeBlockBorder: "mdCodeBlockBorder", MdQuote: "mdQuote", MdQuoteBorder: "mdQuoteBorder", MdHr: "mdHr",
	MdListBullet: "mdListBullet", ToolDiffAdded: "toolDiffAdded", ToolDiffRemoved: "toolDiffRemoved",
	ToolDiffContext: "toolDiffContext", ThinkingOff: "thinkingOff", ThinkingMinimal: "thinkingMinimal",
	ThinkingLow: "thinkingLow", ThinkingMedium: "thinkingMedium", ThinkingHigh: "thinkingHigh",
	ThinkingXHigh: "thinkingXhigh", BashMode: "bashMode", SyntaxComment: "syntaxComment",
	SyntaxKeyword: "syntaxKeyword", SyntaxFunction: "syntaxFunction", SyntaxVariable: "syntaxVariable",
	SyntaxString: "syntaxString", SyntaxNumber: "syntaxNumber", SyntaxType: "syntaxType",
	SyntaxOperator: "syntaxOperator", SyntaxPunctuation: "syntaxPunctuation",
}

// Colors returns the theme's palette by pi's key names (for the HTML export), whatever the
// terminal's colour profile; keys left to the terminal's default colour are left out.
func (t *Theme) Colors() map[string]string {
	out := make(map[string]string, numKeys)
	for k, c := range t.palette {
		if c != "" {
			out[keyNames[k]] = c
		}
	}
	return out
}

// Named returns pi's dark or light theme for a "theme" setting (see Resolve), for uses that draw
// no terminal (the HTML export from the command line or RPC).
func Named(setting, colorFGBG string) *Theme {
	if Resolve(setting, colorFGBG) == "light" {
		return New("light", LightPalette(), termenv.TrueColor, false)
	}
	return New("dark", DarkPalette(), termenv.TrueColor, true)
}
