package ckpt

import (
	"errors"
	"os"
)

// lockFile refuses under GOOS=js (WebAssembly in a browser), which has no
// file locks and no disk for a checkpoint to survive on.
func lockFile(f *os.File) error {
	return errors.New("checkpoints are not available in WebAssembly (GOOS=js)")
}
