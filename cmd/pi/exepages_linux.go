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
// (minor faults, no disk read while the file is cached). Writable mappings are never touched:
// dropping them would lose data.
func releaseExecutablePages() int {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0
	}
	self := uint64(reflect.ValueOf(releaseExecutablePages).Pointer())
	type mapping struct {
		lo, hi uint64
		perms  string
		path   string
	}
	var all []mapping
	exe := ""
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		// address perms offset dev inode path
		f := bytes.Fields(sc.Bytes())
		if len(f) < 6 || len(f[1]) < 4 {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte("-"))
		if !ok {
			continue
		}
		m := mapping{perms: string(f[1]), path: string(f[5])}
		var err1, err2 error
		m.lo, err1 = strconv.ParseUint(string(lo), 16, 64)
		m.hi, err2 = strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if m.lo <= self && self < m.hi {
			exe = m.path
		}
		all = append(all, m)
	}
	if exe == "" {
		return 0
	}
	n := 0
	for _, m := range all {
		// private and never written: r-xp (code) and r--p (read-only data, the function table)
		if m.path != exe || m.perms[1] == 'w' || m.perms[3] != 'p' {
			continue
		}
		// the raw call: the range is not Go memory, so there is no []byte to hand syscall.Madvise
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(m.lo), uintptr(m.hi-m.lo), syscall.MADV_DONTNEED); errno == 0 {
			n++
		}
	}
	return n
}
