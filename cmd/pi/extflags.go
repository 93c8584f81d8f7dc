package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// splitExtensionFlags takes the long flags pi-go does not know out of args, for the extensions'
// registerFlag, as pi hands unknown flags to its extensions instead of failing. pi-go cannot ask the
// extensions which of their flags take a value before it parses (they load in the background), so
// `--name=value` is a value and a bare `--name` is true.
func splitExtensionFlags(flags *pflag.FlagSet, args []string) (rest []string, ext map[string]any) {
	rest = make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "--") || len(a) == 2 {
			if f := shortFlag(flags, a); f != nil && f.Value.Type() != "bool" && i+1 < len(args) {
				rest = append(rest, a, args[i+1])
				i++
				continue
			}
			rest = append(rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		if name == "help" { // cobra adds --help when it runs, after this split
			rest = append(rest, a)
			continue
		}
		if f := flags.Lookup(name); f != nil {
			rest = append(rest, a)
			if !hasValue && f.Value.Type() != "bool" && f.NoOptDefVal == "" && i+1 < len(args) {
				rest = append(rest, args[i+1]) // the known flag's value, whatever it looks like
				i++
			}
			continue
		}
		if ext == nil {
			ext = map[string]any{}
		}
		if hasValue {
			ext[name] = value
		} else {
			ext[name] = true
		}
	}
	return rest, ext
}

// shortFlag is the flag of a single-dash "-x" argument, nil for anything else.
func shortFlag(flags *pflag.FlagSet, a string) *pflag.Flag {
	if len(a) != 2 || a[0] != '-' || a[1] == '-' {
		return nil
	}
	return flags.ShorthandLookup(a[1:])
}
