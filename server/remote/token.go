package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"runtime"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/auth"
)

// TokenEnv is the environment variable the bridge reads the access token
// from unless told another (--token-env) or a file (--token-file). The
// token is never an argument: arguments show in ps and in client configs.
const TokenEnv = "GNO_TOKEN"

// unexpanded matches a variable reference a client left as it was
// (${GNO_TOKEN}, ${env:GNO_TOKEN}, {env:GNO_TOKEN}, $GNO_TOKEN): the
// client's config named the variable and the variable was not set where
// the client started.
var unexpanded = regexp.MustCompile(`^\$?\{(env:)?[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$|^\$[A-Za-z_][A-Za-z0-9_]*$`)

// LoadToken reads the access token from file when it is set, else from
// the environment variable env. warn, if not empty, is a caution to show
// (a token file others can read). Errors never quote a token.
func LoadToken(env, file string, getenv func(string) string) (token, warn string, err error) {
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", "", gnoerr.New(gnoerr.NotFound, "token file %s does not exist: write the access token you were given into it (one line, chmod 600)", file)
			}
			return "", "", fmt.Errorf("read token file: %w", err)
		}
		token = strings.TrimSpace(string(data))
		if token == "" {
			return "", "", gnoerr.New(gnoerr.InvalidInput, "token file %s is empty: write the access token you were given into it", file)
		}
		if err := auth.ParseToken(token); err != nil {
			return "", "", gnoerr.New(gnoerr.InvalidInput, "token file %s: %v", file, err)
		}
		if fi, err := os.Stat(file); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			warn = fmt.Sprintf("token file %s can be read by others (mode %v): chmod 600 it", file, fi.Mode().Perm())
		}
		return token, warn, nil
	}
	if env == "" {
		env = TokenEnv
	}
	token = strings.TrimSpace(getenv(env))
	switch {
	case token == "":
		return "", "", gnoerr.New(gnoerr.InvalidInput, "no access token: set %s to the token the server's owner gave you (from gno token create), in the environment your MCP client starts from, or pass --token-file FILE", env)
	case unexpanded.MatchString(token):
		return "", "", gnoerr.New(gnoerr.InvalidInput, "%s holds %q: your MCP client named the variable but it was not set where the client started; set %s there (then restart the client), or use --token-file FILE", env, token, env)
	}
	if err := auth.ParseToken(token); err != nil {
		return "", "", gnoerr.New(gnoerr.InvalidInput, "%s: %v", env, err)
	}
	return token, "", nil
}
