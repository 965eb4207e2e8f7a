package unit

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf16"
)

var spec = Spec{Home: "/home/ann", Index: "notes", Exe: "/opt/my tools/gno",
	Args: []string{"--index", "notes", "daemon", "--addr", "127.0.0.1:7788"}, Env: []string{"GNO_HOME=/data/50% off"},
	LogFile: "/home/ann/.local/share/gno/notes/daemon.log"}

// TestSystemd: the user unit lies in ~/.config/systemd/user (or
// $XDG_CONFIG_HOME), quotes a path with a space, escapes % and stops
// with gno daemon stop.
func TestSystemd(t *testing.T) {
	s := spec
	s.GOOS = "linux"
	u, err := For(s)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/home/ann/.config/systemd/user/gno-daemon-notes.service" || u.Name != "gno-daemon-notes.service" {
		t.Errorf("path %s name %s", u.Path, u.Name)
	}
	c := string(u.Content)
	for _, want := range []string{
		`ExecStart="/opt/my tools/gno" --index notes daemon --addr 127.0.0.1:7788` + "\n",
		`ExecStop="/opt/my tools/gno" --index notes daemon stop` + "\n",
		`Environment="GNO_HOME=/data/50%% off"` + "\n",
		"WantedBy=default.target\n", "Restart=on-failure\n",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("unit lacks %q:\n%s", want, c)
		}
	}
	s.XDGConfigHome, s.Index = "/xdg", "default"
	if u, _ := For(s); u.Path != "/xdg/systemd/user/gno-daemon.service" {
		t.Errorf("XDG path %s", u.Path)
	}
}

// TestLaunchd: the agent plist is well-formed XML with the label, the
// arguments one per string, the environment and the log.
func TestLaunchd(t *testing.T) {
	s := spec
	s.GOOS = "darwin"
	s.Args = append(s.Args, "--x=<&>")
	u, err := For(s)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/home/ann/Library/LaunchAgents/dev.gno.daemon.notes.plist" {
		t.Errorf("path %s", u.Path)
	}
	var plist struct {
		Dict struct {
			Inner []byte `xml:",innerxml"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(u.Content, &plist); err != nil {
		t.Fatalf("plist does not parse: %v\n%s", err, u.Content)
	}
	strs := strings.Count(string(u.Content), "<string>")
	// Label, exe + 6 args, one env value, ProcessType, 2 log paths.
	if strs != 1+7+1+1+2 {
		t.Errorf("%d <string> elements:\n%s", strs, u.Content)
	}
	for _, want := range []string{"<string>/opt/my tools/gno</string>", "<string>--x=&lt;&amp;&gt;</string>", "<key>GNO_HOME</key>", "<key>RunAtLoad</key>"} {
		if !strings.Contains(string(u.Content), want) {
			t.Errorf("plist lacks %q", want)
		}
	}
}

// TestTask: the task file is UTF-16 with a BOM, parses as XML, runs at
// logon and sets the environment through cmd.
func TestTask(t *testing.T) {
	s := spec
	s.GOOS, s.Home, s.LocalAppData = "windows", `C:\Users\ann`, ""
	s.Exe = `C:\Program Files\gno\gno.exe`
	u, err := For(s)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != `C:\Users\ann\AppData\Local\gno\gno-daemon-notes.xml` || u.Name != "gno daemon notes" {
		t.Errorf("path %s name %q", u.Path, u.Name)
	}
	b := u.Content
	if len(b) < 2 || b[0] != 0xff || b[1] != 0xfe || len(b)%2 != 0 {
		t.Fatalf("not UTF-16LE with a BOM: % x", b[:4])
	}
	u16 := make([]uint16, 0, len(b)/2)
	for i := 2; i < len(b); i += 2 {
		u16 = append(u16, uint16(b[i])|uint16(b[i+1])<<8)
	}
	text := string(utf16.Decode(u16))
	var task struct {
		Actions struct {
			Exec struct {
				Command   string
				Arguments string
			}
		}
		Triggers struct {
			LogonTrigger struct{ Enabled bool }
		}
	}
	// encoding/xml refuses a UTF-16 declaration it cannot decode; the
	// text itself is what schtasks reads.
	dec := xml.NewDecoder(strings.NewReader(strings.Replace(text, `encoding="UTF-16"`, `encoding="UTF-8"`, 1)))
	if err := dec.Decode(&task); err != nil {
		t.Fatalf("task does not parse: %v\n%s", err, text)
	}
	if !task.Triggers.LogonTrigger.Enabled || task.Actions.Exec.Command != `C:\Windows\System32\cmd.exe` {
		t.Errorf("task %+v", task)
	}
	want := `/d /c set "GNO_HOME=/data/50% off" && "C:\Program Files\gno\gno.exe" --index notes daemon --addr 127.0.0.1:7788`
	if task.Actions.Exec.Arguments != want {
		t.Errorf("arguments\n got %s\nwant %s", task.Actions.Exec.Arguments, want)
	}
	if !strings.Contains(text, "\r\n") {
		t.Error("no CRLF line ends")
	}
}

func TestWinQuote(t *testing.T) {
	for in, want := range map[string]string{"": `""`, "a": "a", "a b": `"a b"`, `a"b`: `"a\"b"`, `C:\x y\`: `"C:\x y\\"`, `a\"b`: `"a\\\"b"`} {
		if got := winQuote(in); got != want {
			t.Errorf("winQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
