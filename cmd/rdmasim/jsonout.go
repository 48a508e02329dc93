package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// writeJSON prints v as one line of JSON, without HTML escaping (traces
// contain "->").
func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(w, "{\"error\":%q}\n", err.Error())
	}
}
