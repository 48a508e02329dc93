//go:build !js

package ckpt

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f without waiting, so that
// two processes never write one checkpoint directory.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
