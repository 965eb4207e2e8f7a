package packages

import (
	"os"
	"path/filepath"
	"strings"
)

// licenseOf names the licence of a package that declares none in
// metadata (Go modules, Swift checkouts) from its LICENSE file. It only
// recognises the common licences by their wording, the way a reader
// would; anything else gives "". A full matcher (google/licensecheck)
// would add a large corpus for a field shown as a hint.
func (d *discovery) licenseOf(dir string) string {
	_, ents, err := d.read.readDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		n := strings.ToUpper(e.Name())
		if !strings.HasPrefix(n, "LICENSE") && !strings.HasPrefix(n, "LICENCE") && !strings.HasPrefix(n, "COPYING") {
			continue
		}
		data, err := d.read.readFile(filepath.Join(dir, e.Name()), 1<<20)
		if err != nil {
			continue
		}
		if id := guessLicense(string(data[:min(len(data), 16<<10)])); id != "" {
			return id
		}
	}
	return ""
}

// guessLicense maps licence text to an SPDX identifier by its telling
// phrases.
func guessLicense(text string) string {
	t := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	has := func(s ...string) bool {
		for _, x := range s {
			if !strings.Contains(t, x) {
				return false
			}
		}
		return true
	}
	switch {
	case has("apache license", "version 2.0"):
		return "Apache-2.0"
	case has("mozilla public license", "2.0"):
		return "MPL-2.0"
	case has("gnu lesser general public license", "version 3"):
		return "LGPL-3.0"
	case has("gnu lesser general public license", "version 2.1"):
		return "LGPL-2.1"
	case has("gnu affero general public license"):
		return "AGPL-3.0"
	case has("gnu general public license", "version 3"):
		return "GPL-3.0"
	case has("gnu general public license", "version 2"):
		return "GPL-2.0"
	case has("permission is hereby granted, free of charge"):
		return "MIT"
	case has("permission to use, copy, modify, and/or distribute this software for any purpose"):
		return "ISC"
	case has("redistribution and use in source and binary forms", "neither the name"):
		return "BSD-3-Clause"
	case has("redistribution and use in source and binary forms"):
		return "BSD-2-Clause"
	case has("this is free and unencumbered software released into the public domain"):
		return "Unlicense"
	}
	return ""
}

// removeAll removes a scratch folder; read-only files (the go command
// makes its downloads read-only) are made writable first.
func removeAll(dir string) {
	if err := os.RemoveAll(dir); err == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(dir)
}
