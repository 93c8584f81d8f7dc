package keymap

// Definition is one action pi lets the user bind: its id in keybindings.json, its default keys
// (pi 1.6's on Linux and macOS) and what it does.
type Definition struct {
	ID       string
	Defaults []string
	Help     string
}

// Action ids pi-go handles (the constants name the ones the TUI asks for).
const (
	EditorCursorUp           = "tui.editor.cursorUp"
	EditorCursorDown         = "tui.editor.cursorDown"
	EditorHistoryPrevious    = "tui.editor.historyPrevious"
	EditorHistoryNext        = "tui.editor.historyNext"
	EditorCursorLeft         = "tui.editor.cursorLeft"
	EditorCursorRight        = "tui.editor.cursorRight"
	EditorCursorWordLeft     = "tui.editor.cursorWordLeft"
	EditorCursorWordRight    = "tui.editor.cursorWordRight"
	EditorCursorLineStart    = "tui.editor.cursorLineStart"
	EditorCursorLineEnd      = "tui.editor.cursorLineEnd"
	EditorDeleteCharBackward = "tui.editor.deleteCharBackward"
	EditorDeleteCharForward  = "tui.editor.deleteCharForward"
	EditorDeleteWordBackward = "tui.editor.deleteWordBackward"
	EditorDeleteWordForward  = "tui.editor.deleteWordForward"
	EditorDeleteToLineStart  = "tui.editor.deleteToLineStart"
	EditorDeleteToLineEnd    = "tui.editor.deleteToLineEnd"
	EditorYank               = "tui.editor.yank"
	EditorYankPop            = "tui.editor.yankPop"
	EditorUndo               = "tui.editor.undo"
	InputNewLine             = "tui.input.newLine"
	InputSubmit              = "tui.input.submit"
	InputTab                 = "tui.input.tab"

	AppInterrupt      = "app.interrupt"
	AppClear          = "app.clear"
	AppExit           = "app.exit"
	AppSuspend        = "app.suspend"
	AppThinkingCycle  = "app.thinking.cycle"
	AppModelCycle     = "app.model.cycleForward"
	AppModelSelect    = "app.model.select"
	AppToolsExpand    = "app.tools.expand"
	AppThinkingToggle = "app.thinking.toggle"
	AppEditorExternal = "app.editor.external"
	AppFollowUp       = "app.message.followUp"
	AppDequeue        = "app.message.dequeue"
	AppSessionNew     = "app.session.new"
	AppSessionTree    = "app.session.tree"
	AppSessionFork    = "app.session.fork"
	AppSessionResume  = "app.session.resume"
)

func keys(k ...string) []string { return k }

// Definitions are pi 1.6's keybinding actions, in its order (pi-tui's, then the coding agent's).
var Definitions = []Definition{
	{EditorCursorUp, keys("up"), "Move cursor up"},
	{EditorCursorDown, keys("down"), "Move cursor down"},
	{EditorHistoryPrevious, keys(), "Select previous prompt history entry"},
	{EditorHistoryNext, keys(), "Select next prompt history entry"},
	{EditorCursorLeft, keys("left", "ctrl+b"), "Move cursor left"},
	{EditorCursorRight, keys("right", "ctrl+f"), "Move cursor right"},
	{EditorCursorWordLeft, keys("alt+left", "ctrl+left", "alt+b"), "Move cursor word left"},
	{EditorCursorWordRight, keys("alt+right", "ctrl+right", "alt+f"), "Move cursor word right"},
	{EditorCursorLineStart, keys("home", "ctrl+a"), "Move to line start"},
	{EditorCursorLineEnd, keys("end", "ctrl+e"), "Move to line end"},
	{"tui.editor.jumpForward", keys("ctrl+]"), "Jump forward to character"},
	{"tui.editor.jumpBackward", keys("ctrl+alt+]"), "Jump backward to character"},
	{"tui.editor.pageUp", keys("pageUp", "ctrl+pageUp"), "Page up"},
	{"tui.editor.pageDown", keys("pageDown", "ctrl+pageDown"), "Page down"},
	{EditorDeleteCharBackward, keys("backspace"), "Delete character backward"},
	{EditorDeleteCharForward, keys("delete", "ctrl+d"), "Delete character forward"},
	{EditorDeleteWordBackward, keys("ctrl+w", "alt+backspace"), "Delete word backward"},
	{EditorDeleteWordForward, keys("alt+d", "alt+delete"), "Delete word forward"},
	{EditorDeleteToLineStart, keys("ctrl+u"), "Delete to line start"},
	{EditorDeleteToLineEnd, keys("ctrl+k"), "Delete to line end"},
	{EditorYank, keys("ctrl+y"), "Yank"},
	{EditorYankPop, keys("alt+y"), "Yank pop"},
	{EditorUndo, keys("ctrl+-"), "Undo"},
	{InputNewLine, keys("shift+enter", "ctrl+j"), "Insert newline"},
	{InputSubmit, keys("enter"), "Submit input"},
	{InputTab, keys("tab"), "Tab / autocomplete"},
	{"tui.input.copy", keys("ctrl+c"), "Copy selection"},
	{"tui.select.up", keys("up"), "Move selection up"},
	{"tui.select.down", keys("down"), "Move selection down"},
	{"tui.select.pageUp", keys("pageUp"), "Selection page up"},
	{"tui.select.pageDown", keys("pageDown"), "Selection page down"},
	{"tui.select.confirm", keys("enter"), "Confirm selection"},
	{"tui.select.cancel", keys("escape", "ctrl+c"), "Cancel selection"},
	{"tui.altScreen.pageUp", keys("pageUp"), "Scroll viewport up one page"},
	{"tui.altScreen.pageDown", keys("pageDown"), "Scroll viewport down one page"},
	{"tui.altScreen.halfPageUp", keys(), "Scroll viewport up half a page"},
	{"tui.altScreen.halfPageDown", keys(), "Scroll viewport down half a page"},
	{"tui.altScreen.lineUp", keys(), "Scroll viewport up one line"},
	{"tui.altScreen.lineDown", keys(), "Scroll viewport down one line"},
	{"tui.altScreen.previousPrompt", keys("ctrl+shift+up", "ctrl+up"), "Jump to previous semantic prompt"},
	{"tui.altScreen.nextPrompt", keys("ctrl+shift+down", "ctrl+down"), "Jump to next semantic prompt"},
	{"tui.altScreen.search", keys("ctrl+shift+f"), "Search the primary scroll view"},
	{"tui.altScreen.searchNext", keys("enter", "ctrl+g"), "Select the next search match"},
	{"tui.altScreen.searchPrevious", keys("shift+enter", "ctrl+shift+g"), "Select the previous search match"},
	{"tui.altScreen.searchClose", keys("escape"), "Close transcript search"},
	{"tui.altScreen.top", keys("ctrl+home"), "Scroll viewport to top"},
	{"tui.altScreen.bottom", keys("ctrl+end"), "Scroll viewport to bottom"},

	{AppInterrupt, keys("escape"), "Cancel or abort"},
	{AppClear, keys("ctrl+c"), "Clear editor"},
	{AppExit, keys("ctrl+d"), "Exit when editor is empty"},
	{AppSuspend, keys("ctrl+z"), "Suspend to background"},
	{AppThinkingCycle, keys("shift+tab"), "Cycle thinking level"},
	{"app.thinking.save", keys("ctrl+s"), "Save thinking level"},
	{AppModelCycle, keys("ctrl+p"), "Cycle to next model"},
	{"app.model.cycleBackward", keys("shift+ctrl+p"), "Cycle to previous model"},
	{AppModelSelect, keys("ctrl+l"), "Open model selector"},
	{AppToolsExpand, keys("ctrl+o"), "Toggle tool output"},
	{AppThinkingToggle, keys("ctrl+t"), "Toggle thinking blocks"},
	{"app.session.toggleNamedFilter", keys("ctrl+n"), "Toggle named session filter"},
	{AppEditorExternal, keys("ctrl+g"), "Open external editor"},
	{"app.message.copy", keys("ctrl+x"), "Copy selection or last assistant message"},
	{AppFollowUp, keys("alt+enter"), "Queue follow-up message"},
	{AppDequeue, keys("alt+up"), "Restore queued messages"},
	{"app.clipboard.pasteImage", keys("ctrl+v"), "Paste files on macOS, images, or text from clipboard"},
	{AppSessionNew, keys(), "Start a new session"},
	{AppSessionTree, keys(), "Open session tree"},
	{AppSessionFork, keys(), "Fork current session"},
	{AppSessionResume, keys(), "Resume a session"},
	{"app.tree.foldOrUp", keys("ctrl+left", "alt+left"), "Fold tree branch or move up"},
	{"app.tree.unfoldOrDown", keys("ctrl+right", "alt+right"), "Unfold tree branch or move down"},
	{"app.tree.editLabel", keys("shift+l"), "Edit tree label"},
	{"app.tree.toggleLabelTimestamp", keys("shift+t"), "Toggle tree label timestamps"},
	{"app.session.togglePath", keys("ctrl+p"), "Toggle session path display"},
	{"app.session.toggleSort", keys("ctrl+s"), "Toggle session sort mode"},
	{"app.session.rename", keys("ctrl+r"), "Rename session"},
	{"app.session.delete", keys("ctrl+d"), "Delete session"},
	{"app.session.deleteNoninvasive", keys("ctrl+backspace"), "Delete session when query is empty"},
	{"app.models.save", keys("ctrl+s"), "Save model selection"},
	{"app.models.enableAll", keys("ctrl+a"), "Enable all models"},
	{"app.models.clearAll", keys("ctrl+x"), "Clear all models"},
	{"app.models.toggleProvider", keys("ctrl+p"), "Toggle all models for provider"},
	{"app.models.reorderUp", keys("alt+up"), "Move model up in order"},
	{"app.models.reorderDown", keys("alt+down"), "Move model down in order"},
	{"app.tree.filter.default", keys("ctrl+d"), "Tree filter: default view"},
	{"app.tree.filter.noTools", keys("ctrl+t"), "Tree filter: hide tool results"},
	{"app.tree.filter.userOnly", keys("ctrl+u"), "Tree filter: user messages only"},
	{"app.tree.filter.labeledOnly", keys("ctrl+l"), "Tree filter: labeled entries only"},
	{"app.tree.filter.all", keys("ctrl+a"), "Tree filter: show all entries"},
	{"app.tree.filter.cycleForward", keys("ctrl+o"), "Tree filter: cycle forward"},
	{"app.tree.filter.cycleBackward", keys("shift+ctrl+o"), "Tree filter: cycle backward"},
}

// legacyIDs are pi 0.x's action names and the ids pi 1.6 gave them.
var legacyIDs = map[string]string{
	"cursorUp": EditorCursorUp, "cursorDown": EditorCursorDown, "cursorLeft": EditorCursorLeft,
	"cursorRight": EditorCursorRight, "cursorWordLeft": EditorCursorWordLeft, "cursorWordRight": EditorCursorWordRight,
	"cursorLineStart": EditorCursorLineStart, "cursorLineEnd": EditorCursorLineEnd,
	"jumpForward": "tui.editor.jumpForward", "jumpBackward": "tui.editor.jumpBackward",
	"pageUp": "tui.editor.pageUp", "pageDown": "tui.editor.pageDown",
	"deleteCharBackward": EditorDeleteCharBackward, "deleteCharForward": EditorDeleteCharForward,
	"deleteWordBackward": EditorDeleteWordBackward, "deleteWordForward": EditorDeleteWordForward,
	"deleteToLineStart": EditorDeleteToLineStart, "deleteToLineEnd": EditorDeleteToLineEnd,
	"yank": EditorYank, "yankPop": EditorYankPop, "undo": EditorUndo,
	"newLine": InputNewLine, "submit": InputSubmit, "tab": InputTab, "copy": "tui.input.copy",
	"selectUp": "tui.select.up", "selectDown": "tui.select.down", "selectPageUp": "tui.select.pageUp",
	"selectPageDown": "tui.select.pageDown", "selectConfirm": "tui.select.confirm", "selectCancel": "tui.select.cancel",
	"interrupt": AppInterrupt, "clear": AppClear, "exit": AppExit, "suspend": AppSuspend,
	"cycleThinkingLevel": AppThinkingCycle, "cycleModelForward": AppModelCycle,
	"cycleModelBackward": "app.model.cycleBackward", "selectModel": AppModelSelect, "expandTools": AppToolsExpand,
	"toggleThinking": AppThinkingToggle, "toggleSessionNamedFilter": "app.session.toggleNamedFilter",
	"externalEditor": AppEditorExternal, "followUp": AppFollowUp, "dequeue": AppDequeue,
	"pasteImage": "app.clipboard.pasteImage", "newSession": AppSessionNew, "tree": AppSessionTree,
	"fork": AppSessionFork, "resume": AppSessionResume, "treeFoldOrUp": "app.tree.foldOrUp",
	"treeUnfoldOrDown": "app.tree.unfoldOrDown", "treeEditLabel": "app.tree.editLabel",
	"treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp", "toggleSessionPath": "app.session.togglePath",
	"toggleSessionSort": "app.session.toggleSort", "renameSession": "app.session.rename",
	"deleteSession": "app.session.delete", "deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}
