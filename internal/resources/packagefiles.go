package resources

// These are the pieces of skill discovery and settings filtering that the package manager
// (internal/packages) applies to the resources a package carries, so a package's skills are found
// and filtered exactly as the user's own.

// SkillFiles are the skill files under dir as pi finds them in its own skills directories: a
// directory with a SKILL.md is one skill, root-level .md files are skills too.
func SkillFiles(dir string) []string { return skillEntries(dir, modePi) }

// ApplyPatterns says which of files stay enabled under a list of settings patterns resolved against
// base: plain globs select (all when there are none), "!glob" excludes, "+path" forces in and
// "-path" forces out.
func ApplyPatterns(files, patterns []string, base, home string) map[string]bool {
	return applyPatterns(files, patterns, base, home)
}
