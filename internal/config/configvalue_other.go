//go:build !unix

package config

import "os/exec"

// killGroupOnCancel keeps exec's default (kill the shell); WaitDelay bounds the wait for children.
func killGroupOnCancel(cmd *exec.Cmd) {}
