package main

import (
	"bufio"
	"bytes"
	"os"
	"reflect"
	"strconv"
	"syscall"
)

// releaseExecutablePages drops this process's mappings of its own executable's read-only pages (code,
// constants, the function table) and returns how many mappings it released. The Go runtime and the
// package initialisers of every linked library touch code and data all over the binary before main
// runs, and the kernel maps file pages 64 KB at a time around each touch: start-up alone leaves
// about 25 MB of a 43 MB binary resident, most of it never used again. The pages stay in the page
// cache, shared with every other pi-go process; what the program runs afterwards faults back in
// (minor faults, no disk read while the file is cached).
//
// Only mappings that hold the file's own bytes are dropped: never a writable one, and never a
// read-only one with pages of its own (Anonymous in smaps: a dynamically linked build's relocated,
// then write-protected GOT), whose contents would fall back to the file's.
func releaseExecutablePages() int {
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range releasableRanges(smaps, uint64(reflect.ValueOf(releaseExecutablePages).Pointer())) {
		// the raw call: the range is not Go memory, so there is no []byte to hand syscall.Madvise
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(r[0]), uintptr(r[1]-r[0]), syscall.MADV_DONTNEED); errno == 0 {
			n++
		}
	}
	return n
}

// releasableRanges reads smaps (the format of /proc/self/smaps) and returns the [start, end) address
// ranges releaseExecutablePages may drop: the private, read-only mappings without pages of their own
// of the file mapped at address self.
func releasableRanges(smaps []byte, self uint64) [][2]uint64 {
	type mapping struct {
		lo, hi uint64
		perms  string
		path   string
		anon   bool // has pages of its own (copied on write)
	}
	var all []*mapping
	var cur *mapping
	exe := ""
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 {
			continue
		}
		// a mapping's first line: address perms offset dev inode [path]; then "Key: value kB" lines
		if lo, hi, ok := bytes.Cut(f[0], []byte("-")); ok && len(f) >= 5 && len(f[1]) == 4 {
			cur = nil
			l, err1 := strconv.ParseUint(string(lo), 16, 64)
			h, err2 := strconv.ParseUint(string(hi), 16, 64)
			if err1 != nil || err2 != nil || len(f) < 6 {
				continue
			}
			cur = &mapping{lo: l, hi: h, perms: string(f[1]), path: string(bytes.Join(f[5:], []byte(" ")))}
			if l <= self && self < h {
				exe = cur.path
			}
			all = append(all, cur)
			continue
		}
		if cur != nil && string(f[0]) == "Anonymous:" && len(f) >= 2 && string(f[1]) != "0" {
			cur.anon = true
		}
	}
	if exe == "" {
		return nil
	}
	var out [][2]uint64
	for _, m := range all {
		// private, never written: r-xp (code) and r--p (read-only data, the function table)
		if m.path != exe || m.perms[1] == 'w' || m.perms[3] != 'p' || m.anon {
			continue
		}
		out = append(out, [2]uint64{m.lo, m.hi})
	}
	return out
}
