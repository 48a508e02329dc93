package report

import (
	"runtime/debug"
	"testing"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		s             string
		width, indent int
		want          string
	}{
		{"short", 40, 2, "short"},
		{"one two three four five six seven", 20, 2, "one two three four\n  five six seven"},
		{"a-very-long-unbreakable-word and more", 20, 4, "a-very-long-unbreakable-word\n    and more"},
		{"  spaces   are   squeezed  ", 40, 0, "spaces are squeezed"},
		{"too narrow to wrap into a column at all", 19, 2, "too narrow to wrap into a column at all"},
		{"", 40, 2, ""},
	}
	for _, tc := range tests {
		if got := Wrap(tc.s, tc.width, tc.indent); got != tc.want {
			t.Errorf("Wrap(%q, %d, %d) = %q, want %q", tc.s, tc.width, tc.indent, got, tc.want)
		}
	}
}

func TestVersionLine(t *testing.T) {
	bi := func(version string, settings ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "rdmasim", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return b
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "rdmasim devel"},
		{"devel, no VCS stamp", bi("(devel)"), true, "rdmasim devel (go1.26.8)"},
		{"module version", bi("v1.2.3", "vcs.revision", "0123456789abcdef0123"), true, "rdmasim v1.2.3, revision 0123456789ab (go1.26.8)"},
		{"revision", bi("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), true, "rdmasim devel, revision 0123456789ab (go1.26.8)"},
		{"modified", bi("", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), true, "rdmasim devel, revision 0123456789ab, modified (go1.26.8)"},
		{"module version, modified", bi("v1.2.3", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), true, "rdmasim v1.2.3, revision 0123456789ab, modified (go1.26.8)"},
		{"short revision", bi("(devel)", "vcs.revision", "abc"), true, "rdmasim devel, revision abc (go1.26.8)"},
	}
	for _, tc := range tests {
		if got := VersionLine(tc.bi, tc.ok); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestWithRevision: a revision passed by -ldflags shows when Go stamped none
// (-buildvcs=false), never over Go's own stamp.
func TestWithRevision(t *testing.T) {
	plain := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "rdmasim", Version: "(devel)"}}
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "rdmasim", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "aaaaaaaaaaaaaaaa"}}}
	tests := []struct {
		name          string
		bi            *debug.BuildInfo
		rev, modified string
		want          string
	}{
		{"no stamp, none passed", plain, "", "", "rdmasim devel (go1.26.8)"},
		{"no stamp, passed", plain, "0123456789abcdef", "true", "rdmasim devel, revision 0123456789ab, modified (go1.26.8)"},
		{"no stamp, clean", plain, "0123456789abcdef", "false", "rdmasim devel, revision 0123456789ab (go1.26.8)"},
		{"Go's stamp wins", stamped, "0123456789abcdef", "true", "rdmasim devel, revision aaaaaaaaaaaa (go1.26.8)"},
	}
	for _, tc := range tests {
		if got := VersionLine(WithRevision(tc.bi, tc.rev, tc.modified), true); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if len(plain.Settings) != 0 {
		t.Error("WithRevision changed its argument")
	}
}
