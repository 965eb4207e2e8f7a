// Package unit writes what starts `gno daemon` at login on each OS: a
// systemd user unit (Linux and other Unixes with systemd), a launchd agent
// (macOS), a Task Scheduler task (Windows). It computes the file, its
// place under the user's home and the commands that register it; the
// caller writes it and runs them. It must not start anything itself.
//
// Sources: systemd.service(5) and systemd.exec(5) (ExecStart quoting,
// Environment=, user units in ~/.config/systemd/user), launchd.plist(5)
// (~/Library/LaunchAgents, KeepAlive, RunAtLoad), and the Task Scheduler
// schema (LogonTrigger, schtasks /Create /XML, a UTF-16 file).
package unit

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf16"
)

// Spec is what to run, for whom.
type Spec struct {
	// GOOS picks the layout: "linux" (and other Unixes), "darwin",
	// "windows".
	GOOS string
	// Home is the user's home; XDGConfigHome ($XDG_CONFIG_HOME, if
	// absolute) and LocalAppData (%LOCALAPPDATA%) override the defaults
	// under it on Linux and Windows.
	Home, XDGConfigHome, LocalAppData string
	// Index names the index (one unit per index).
	Index string
	// Exe is gno's absolute path; Args follow it (global flags, "daemon"
	// and its flags).
	Exe  string
	Args []string
	// Env are KEY=VALUE settings the daemon needs (GNO_HOME…).
	Env []string
	// LogFile receives the daemon's stdout and stderr where the service
	// manager does not keep them (launchd).
	LogFile string
}

// Unit is a service definition ready to write.
type Unit struct {
	// Name is what the service manager calls it.
	Name string
	// Path is where it goes; Content what it holds.
	Path    string
	Content []byte
	// Start registers and starts it; Stop stops and unregisters it.
	// Each is a command line; the caller runs them when the tool exists.
	Start, Stop [][]string
}

// For computes the unit of s.
func For(s Spec) (Unit, error) {
	if s.Home == "" || s.Exe == "" || s.Index == "" {
		return Unit{}, errors.New("unit: home, executable and index are required")
	}
	switch s.GOOS {
	case "darwin":
		return launchd(s), nil
	case "windows":
		return task(s), nil
	default:
		return systemd(s), nil
	}
}

// suffix tells the default index from the others in names.
func suffix(index, sep string) string {
	if index == "default" {
		return ""
	}
	return sep + index
}

func systemd(s Spec) Unit {
	name := "gno-daemon" + suffix(s.Index, "-") + ".service"
	dir := s.XDGConfigHome
	if dir == "" {
		dir = path.Join(s.Home, ".config")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by gno daemon install; gno daemon uninstall removes it.\n")
	fmt.Fprintf(&b, "[Unit]\nDescription=gno daemon: index %s\n\n", s.Index)
	fmt.Fprintf(&b, "[Service]\nType=simple\n")
	fmt.Fprintf(&b, "ExecStart=%s\n", systemdLine(append([]string{s.Exe}, s.Args...)))
	fmt.Fprintf(&b, "ExecStop=%s\n", systemdLine(append([]string{s.Exe}, stopArgs(s.Args)...)))
	b.WriteString("Restart=on-failure\nRestartSec=5\n")
	for _, kv := range s.Env {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(kv))
	}
	b.WriteString("\n[Install]\nWantedBy=default.target\n")
	return Unit{Name: name, Path: path.Join(dir, "systemd", "user", name), Content: []byte(b.String()),
		Start: [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", name}},
		Stop:  [][]string{{"systemctl", "--user", "disable", "--now", name}, {"systemctl", "--user", "daemon-reload"}}}
}

// stopArgs turns the daemon's arguments into `gno daemon stop`'s: the
// global flags (before "daemon") and "daemon stop".
func stopArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "daemon" {
			break
		}
		out = append(out, a)
	}
	return append(out, "daemon", "stop")
}

// systemdLine quotes a command line for ExecStart.
func systemdLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = systemdQuote(a)
	}
	return strings.Join(q, " ")
}

// systemdQuote quotes one word: double quotes with C escapes when needed;
// % and $ are doubled (specifiers and variables).
func systemdQuote(a string) string {
	a = strings.NewReplacer("%", "%%", "$", "$$").Replace(a)
	if a != "" && !strings.ContainsAny(a, " \t\n\"'\\;") {
		return a
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(a) + `"`
}

func launchd(s Spec) Unit {
	label := "dev.gno.daemon" + suffix(s.Index, ".")
	p := path.Join(s.Home, "Library", "LaunchAgents", label+".plist")
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString("<plist version=\"1.0\">\n<dict>\n")
	kv := func(k, v string) { fmt.Fprintf(&b, "  <key>%s</key>\n  <string>%s</string>\n", esc(k), esc(v)) }
	kv("Label", label)
	b.WriteString("  <key>ProgramArguments</key>\n  <array>\n")
	for _, a := range append([]string{s.Exe}, s.Args...) {
		fmt.Fprintf(&b, "    <string>%s</string>\n", esc(a))
	}
	b.WriteString("  </array>\n")
	if len(s.Env) > 0 {
		b.WriteString("  <key>EnvironmentVariables</key>\n  <dict>\n")
		for _, e := range s.Env {
			k, v, _ := strings.Cut(e, "=")
			fmt.Fprintf(&b, "    <key>%s</key>\n    <string>%s</string>\n", esc(k), esc(v))
		}
		b.WriteString("  </dict>\n")
	}
	b.WriteString("  <key>RunAtLoad</key>\n  <true/>\n")
	b.WriteString("  <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>\n")
	b.WriteString("  <key>ProcessType</key>\n  <string>Background</string>\n")
	if s.LogFile != "" {
		kv("StandardOutPath", s.LogFile)
		kv("StandardErrorPath", s.LogFile)
	}
	b.WriteString("</dict>\n</plist>\n")
	return Unit{Name: label, Path: p, Content: b.Bytes(),
		Start: [][]string{{"launchctl", "load", "-w", p}},
		Stop:  [][]string{{"launchctl", "unload", "-w", p}}}
}

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func task(s Spec) Unit {
	name := "gno daemon" + suffix(s.Index, " ")
	dir := s.LocalAppData
	if dir == "" {
		dir = winJoin(s.Home, "AppData", "Local")
	}
	p := winJoin(dir, "gno", "gno-daemon"+suffix(s.Index, "-")+".xml")
	command, args := s.Exe, winLine(s.Args)
	if len(s.Env) > 0 {
		// Tasks have no environment of their own: cmd sets it.
		var sets []string
		for _, e := range s.Env {
			sets = append(sets, "set "+winQuote(e)+" &&")
		}
		command = `C:\Windows\System32\cmd.exe`
		args = "/d /c " + strings.Join(sets, " ") + " " + winQuote(s.Exe) + " " + winLine(s.Args)
	}
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n")
	b.WriteString("<Task version=\"1.2\" xmlns=\"http://schemas.microsoft.com/windows/2004/02/mit/task\">\n")
	fmt.Fprintf(&b, "  <RegistrationInfo>\n    <Description>gno daemon: index %s (written by gno daemon install)</Description>\n  </RegistrationInfo>\n", esc(s.Index))
	b.WriteString("  <Triggers>\n    <LogonTrigger>\n      <Enabled>true</Enabled>\n    </LogonTrigger>\n  </Triggers>\n")
	b.WriteString("  <Principals>\n    <Principal id=\"Author\">\n      <LogonType>InteractiveToken</LogonType>\n      <RunLevel>LeastPrivilege</RunLevel>\n    </Principal>\n  </Principals>\n")
	b.WriteString("  <Settings>\n    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>\n" +
		"    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>\n    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>\n" +
		"    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>\n    <Hidden>true</Hidden>\n" +
		"    <RestartOnFailure>\n      <Interval>PT1M</Interval>\n      <Count>3</Count>\n    </RestartOnFailure>\n  </Settings>\n")
	fmt.Fprintf(&b, "  <Actions Context=\"Author\">\n    <Exec>\n      <Command>%s</Command>\n      <Arguments>%s</Arguments>\n    </Exec>\n  </Actions>\n</Task>\n",
		esc(command), esc(args))
	return Unit{Name: name, Path: p, Content: utf16File(b.String()),
		Start: [][]string{{"schtasks", "/Create", "/TN", name, "/XML", p, "/F"}, {"schtasks", "/Run", "/TN", name}},
		Stop:  [][]string{{"schtasks", "/End", "/TN", name}, {"schtasks", "/Delete", "/TN", name, "/F"}}}
}

// utf16File encodes s as UTF-16 little-endian with a byte-order mark
// and CRLF line ends, as schtasks reads task files.
func utf16File(s string) []byte {
	s = strings.ReplaceAll(s, "\n", "\r\n")
	u := utf16.Encode([]rune(s))
	out := make([]byte, 2, 2+2*len(u))
	out[0], out[1] = 0xff, 0xfe
	for _, c := range u {
		out = append(out, byte(c), byte(c>>8))
	}
	return out
}

// winJoin joins Windows path elements (this package may run elsewhere:
// tests write every layout on one machine).
func winJoin(elem ...string) string {
	out := strings.TrimRight(elem[0], `\/`)
	for _, e := range elem[1:] {
		out += `\` + strings.Trim(e, `\/`)
	}
	return out
}

// winLine quotes arguments as CommandLineToArgvW reads them.
func winLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = winQuote(a)
	}
	return strings.Join(q, " ")
}

// winQuote is syscall.EscapeArg's rule: quotes around words with spaces
// or quotes, backslashes doubled before a quote.
func winQuote(s string) string {
	if s == "" {
		return `""`
	}
	if !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}
