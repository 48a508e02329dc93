package agree

import (
	"path/filepath"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

func filepathGlob(pattern string) ([]string, error) { return filepath.Glob(pattern) }

func parseFile(path string) (*prog.Program, error) { return parse.File(path) }
