package pkgdocs

import (
	"hash/fnv"
	"sort"
	"strconv"
)

// Case is one question of the ranking set (issue 28): the package that
// answers it and the units that do, API items (Answers) or prose sections
// (Sections: a heading of the package's README or guide).
type Case struct {
	ID, Query, Ecosystem string
	// Package is the name as the ecosystem spells it; "stdlib" for a
	// question about the language's standard library.
	Package string
	Answers []string
	// Sections are headings of the package's docs whose passages answer.
	Sections []string
	// Gap names the extraction gap that keeps the answer out of the index
	// today ("" when none): js-only, py-reexport, rust-macro, stdlib.
	Gap string
}

// Extraction gaps the set knows of (other helpers close them).
const (
	GapJSOnly     = "js-only"
	GapPyReexport = "py-reexport"
	GapRustMacro  = "rust-macro"
	GapStdlib     = "stdlib"
)

// SplitSeed is the seed of the one split of the ranking set into a
// tuning and a checking half (recorded in bench/RESULTS.md).
const SplitSeed = 28

// Half is the half of the ranking set a question is in: "tune" or
// "check". Within each ecosystem the questions are ordered by a hash of
// (SplitSeed, ID) and alternate between the halves, so both halves hold
// every ecosystem in equal shares and adding a question never moves
// another.
func Halves(cs []Case) map[string]string {
	byEco := map[string][]Case{}
	for _, c := range cs {
		byEco[c.Ecosystem] = append(byEco[c.Ecosystem], c)
	}
	out := map[string]string{}
	for _, group := range byEco {
		sort.Slice(group, func(i, j int) bool { return splitKey(group[i].ID) < splitKey(group[j].ID) })
		for i, c := range group {
			if i%2 == 0 {
				out[c.ID] = "tune"
			} else {
				out[c.ID] = "check"
			}
		}
	}
	return out
}

func splitKey(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.Itoa(SplitSeed) + ":" + id))
	return h.Sum64()
}

// judgedSections are the prose sections that also answer questions of
// Judged (its questions predate the ranking set, which takes them in).
var judgedSections = map[string][]string{
	"go-persistent":       {"Persistent Flags"},
	"go-required-flag":    {"Required flags"},
	"go-exclusive-flags":  {"Flag Groups"},
	"go-gen-markdown":     {"Generating Markdown Docs For Your Own cobra.Command", "Generating documentation for your command"},
	"go-mux-subrouter":    {"Matching Routes"},
	"go-mux-methods":      {"Matching Routes"},
	"npm-required-option": {"Required option"},
	"npm-parse-async":     {"Action handler"},
	"npm-subcommand":      {"Commands"},
}

// Ranked is the ranking set: Judged's 66 questions and the ones below,
// written before any tuning of issue 28, as a developer asks them (rarely
// with the item's name; the "named" ones do name it, in the forms people
// type, for the exact symbol lookup).
func Ranked() []Case {
	out := make([]Case, 0, len(Judged)+len(rankedMore))
	for _, q := range Judged {
		c := Case{ID: q.ID, Query: q.Query, Ecosystem: q.Ecosystem, Package: q.Package, Answers: q.Answers, Sections: judgedSections[q.ID]}
		out = append(out, c)
	}
	return append(out, rankedMore...)
}

var rankedMore = []Case{
	// Go: cobra
	{"go-prerun", "run some setup code before every subcommand executes", "go", "github.com/spf13/cobra", nil, []string{"PreRun and PostRun Hooks"}, ""},
	{"go-help-groups", "group commands under headings in the help output", "go", "github.com/spf13/cobra", []string{"Command.AddGroup", "Group"}, []string{"Grouping commands in help"}, ""},
	{"go-typo-suggest", "suggest the closest command name when the user makes a typo", "go", "github.com/spf13/cobra", []string{"Command.SuggestionsFor"}, []string{`Suggestions when "unknown command" happens`}, ""},
	{"go-zsh-completion", "generate a zsh completion script for my cli", "go", "github.com/spf13/cobra", []string{"Command.GenZshCompletion", "Command.GenZshCompletionFile"}, []string{"Generating shell completions", "Zsh completions", "Generating Zsh Completion For Your cobra.Command"}, ""},
	{"go-rune", "return an error from a command instead of exiting the program", "go", "github.com/spf13/cobra", nil, []string{"Returning and handling errors"}, ""},
	{"go-together", "flags that must be given together or not at all", "go", "github.com/spf13/cobra", []string{"Command.MarkFlagsRequiredTogether"}, []string{"Flag Groups"}, ""},
	{"go-valid-args", "only accept positional arguments from a fixed list of values", "go", "github.com/spf13/cobra", []string{"OnlyValidArgs"}, []string{"Positional and Custom Arguments"}, ""},
	// Go: pflag
	{"go-pflag-slice", "flag that takes a comma separated list of strings", "go", "github.com/spf13/pflag", []string{"StringSlice", "StringSliceVar", "FlagSet.StringSlice", "FlagSet.StringSliceVar", "StringSliceP", "FlagSet.StringSliceP"}, nil, ""},
	{"go-pflag-noopt", "value a flag gets when it is given without an argument", "go", "github.com/spf13/pflag", []string{"Flag"}, []string{"Setting no option default values for flags"}, ""},
	{"go-pflag-deprecated", "mark a flag deprecated so using it prints a warning", "go", "github.com/spf13/pflag", []string{"FlagSet.MarkDeprecated", "FlagSet.MarkShorthandDeprecated"}, []string{"Deprecating a flag or its shorthand"}, ""},
	{"go-pflag-goflags", "use flags defined with the standard flag package alongside pflag", "go", "github.com/spf13/pflag", []string{"FlagSet.AddGoFlagSet", "FlagSet.AddGoFlag"}, []string{"Supporting Go flags when using pflag"}, ""},
	{"go-pflag-duration", "accept a time duration like 5s as a command line option", "go", "github.com/spf13/pflag", []string{"Duration", "DurationVar", "FlagSet.Duration", "FlagSet.DurationVar", "DurationP", "FlagSet.DurationP"}, nil, ""},
	{"go-pflag-hidden", "keep a flag working but leave it out of the usage text", "go", "github.com/spf13/pflag", []string{"FlagSet.MarkHidden"}, []string{"Hidden flags"}, ""},
	// Go: uuid
	{"go-uuid-bytes", "turn 16 raw bytes into a UUID value", "go", "github.com/google/uuid", []string{"FromBytes", "UUID.UnmarshalBinary"}, nil, ""},
	{"go-uuid-null", "store a UUID in a database column that can be NULL", "go", "github.com/google/uuid", []string{"NullUUID", "NullUUID.Scan"}, nil, ""},
	{"go-uuid-name", "deterministic UUID derived from a namespace and a name", "go", "github.com/google/uuid", []string{"NewSHA1", "NewMD5", "NewHash"}, nil, ""},
	// Go: x/sync
	{"go-trygo", "start a goroutine only when the group has room under its limit", "go", "golang.org/x/sync", []string{"errgroup.Group.TryGo"}, nil, ""},
	{"go-errgroup-wait", "wait for every goroutine and get the first error back", "go", "golang.org/x/sync", []string{"errgroup.Group.Wait", "errgroup.Group"}, nil, ""},
	{"go-sem-try", "take a semaphore slot without blocking", "go", "golang.org/x/sync", []string{"semaphore.Weighted.TryAcquire"}, nil, ""},
	// Go: toml
	{"go-toml-encode", "write a struct out as a TOML document", "go", "github.com/BurntSushi/toml", []string{"NewEncoder", "Encoder.Encode", "Marshal"}, nil, ""},
	{"go-toml-undecoded", "find keys in the config file that my struct does not have", "go", "github.com/BurntSushi/toml", []string{"MetaData.Undecoded"}, nil, ""},
	{"go-toml-errpos", "show the line and column of a syntax error in a toml file", "go", "github.com/BurntSushi/toml", []string{"ParseError", "ParseError.ErrorWithPosition", "Position"}, nil, ""},
	// Go: mux
	{"go-mux-static", "serve static files from a folder with gorilla", "go", "github.com/gorilla/mux", []string{"Router.PathPrefix", "Route.Handler"}, []string{"Static Files"}, ""},
	{"go-mux-url", "build the URL of a named route", "go", "github.com/gorilla/mux", []string{"Route.URL", "Router.Get", "Route.Name"}, []string{"Registered URLs"}, ""},
	{"go-mux-mw", "add logging middleware to all routes of a router", "go", "github.com/gorilla/mux", []string{"Router.Use", "MiddlewareFunc"}, []string{"Middleware"}, ""},
	{"go-mux-walk", "list every route registered on the router", "go", "github.com/gorilla/mux", []string{"Router.Walk", "WalkFunc"}, []string{"Walking Routes"}, ""},
	// Go: backoff
	{"go-backoff-elapsed", "stop retrying once a total amount of time has passed", "go", "github.com/cenkalti/backoff/v4", []string{"WithMaxElapsedTime", "ExponentialBackOff"}, nil, ""},
	{"go-backoff-ctx", "abandon the retries when my context is cancelled", "go", "github.com/cenkalti/backoff/v4", []string{"WithContext", "BackOffContext"}, nil, ""},
	{"go-backoff-const", "retry at a fixed interval instead of growing delays", "go", "github.com/cenkalti/backoff/v4", []string{"NewConstantBackOff", "ConstantBackOff"}, nil, ""},
	{"go-backoff-notify", "be told about every failed attempt with the error and the wait", "go", "github.com/cenkalti/backoff/v4", []string{"RetryNotify", "Notify"}, nil, ""},
	// Go: chi
	{"go-chi-param", "read a url parameter inside a chi handler", "go", "github.com/go-chi/chi/v5", []string{"URLParam", "Context.URLParam", "URLParamFromCtx"}, nil, ""},
	{"go-chi-mount", "attach a sub-router under a path prefix", "go", "github.com/go-chi/chi/v5", []string{"Mux.Mount", "Mux.Route"}, nil, ""},
	{"go-chi-recover", "keep the server alive when a handler panics", "go", "github.com/go-chi/chi/v5", []string{"middleware.Recoverer"}, nil, ""},
	{"go-chi-timeout", "cancel requests that take longer than a deadline", "go", "github.com/go-chi/chi/v5", []string{"middleware.Timeout"}, nil, ""},
	{"go-chi-with", "apply middleware to just a few routes", "go", "github.com/go-chi/chi/v5", []string{"Mux.With", "Mux.Group"}, []string{"Middleware handlers"}, ""},
	{"go-chi-throttle", "cap the number of requests processed at the same time", "go", "github.com/go-chi/chi/v5", []string{"middleware.Throttle", "middleware.ThrottleBacklog", "middleware.ThrottleWithOpts"}, nil, ""},
	{"go-chi-log", "log every http request with its status and duration", "go", "github.com/go-chi/chi/v5", []string{"middleware.Logger", "middleware.RequestLogger"}, nil, ""},
	// Go: color
	{"go-color-red", "print an error message in red from go", "go", "github.com/fatih/color", []string{"Red", "RedString", "New", "Color.Println"}, nil, ""},
	{"go-color-off", "turn colored output off entirely", "go", "github.com/fatih/color", []string{"NoColor", "Color.DisableColor"}, nil, ""},
	{"go-color-func", "make a reusable function that prints in one style", "go", "github.com/fatih/color", []string{"Color.PrintfFunc", "Color.SprintFunc", "Color.PrintFunc", "Color.SprintfFunc"}, []string{"Mix and reuse colors"}, ""},
	// Go: golang-lru
	{"go-lru-new", "fixed size cache that throws out the least recently used entry", "go", "github.com/hashicorp/golang-lru/v2", []string{"New", "Cache"}, nil, ""},
	{"go-lru-ttl", "cache entries that expire after some time", "go", "github.com/hashicorp/golang-lru/v2", []string{"expirable.NewLRU", "expirable.LRU"}, nil, ""},
	{"go-lru-evict", "get a callback when an entry is evicted from the cache", "go", "github.com/hashicorp/golang-lru/v2", []string{"NewWithEvict", "simplelru.EvictCallback", "expirable.EvictCallback"}, nil, ""},
	{"go-lru-peek", "look up a cached value without marking it as recently used", "go", "github.com/hashicorp/golang-lru/v2", []string{"Cache.Peek"}, nil, ""},
	// Go: named (exact symbol lookup)
	{"go-named-persistent", "PersistentFlags", "go", "github.com/spf13/cobra", []string{"Command.PersistentFlags"}, nil, ""},
	{"go-named-setlimit", "errgroup.SetLimit", "go", "golang.org/x/sync", []string{"errgroup.Group.SetLimit"}, nil, ""},
	{"go-named-qualified", "cobra.Command.PersistentFlags", "go", "github.com/spf13/cobra", []string{"Command.PersistentFlags"}, nil, ""},
	{"go-named-inq", "how does MarkFlagsMutuallyExclusive behave with persistent flags", "go", "github.com/spf13/cobra", []string{"Command.MarkFlagsMutuallyExclusive"}, nil, ""},
	{"go-named-lower", "uuid.newstring", "go", "github.com/google/uuid", []string{"NewString"}, nil, ""},

	// npm: commander
	{"npm-default-value", "give an option a default value", "npm", "commander", []string{"Command.option", "Option.default"}, []string{"Default option value"}, ""},
	{"npm-version", "add a --version flag that prints my package version", "npm", "commander", []string{"Command.version"}, []string{"Version option"}, ""},
	{"npm-hook", "run code before the action of every command", "npm", "commander", []string{"Command.hook"}, []string{"Life cycle hooks"}, ""},
	{"npm-help-text", "add extra text after the generated help", "npm", "commander", []string{"Command.addHelpText"}, []string{"Custom help"}, ""},
	{"npm-help-error", "print the help when the user gets the syntax wrong", "npm", "commander", []string{"Command.showHelpAfterError"}, []string{"Display help after errors"}, ""},
	{"npm-conflicts", "two options that must not be used together", "npm", "commander", []string{"Option.conflicts"}, nil, ""},
	{"npm-argparser", "turn an option's value into a number as it is parsed", "npm", "commander", []string{"Option.argParser", "Argument.argParser"}, []string{"Custom option processing"}, ""},
	{"npm-env", "read an option from an environment variable when not given", "npm", "commander", []string{"Option.env"}, nil, ""},
	// npm: zod
	{"npm-zod-coerce", "accept the string \"42\" where a number is expected", "npm", "zod", []string{"coerce", "ZodNumber"}, nil, ""},
	{"npm-zod-enum", "allow only one of a few fixed strings", "npm", "zod", []string{"ZodEnum", "enum", "nativeEnum", "ZodNativeEnum"}, nil, ""},
	{"npm-zod-nonempty", "an array that must have at least one element", "npm", "zod", []string{"ZodArray.nonempty", "ZodArray.min"}, nil, ""},
	{"npm-zod-union", "a value that can match either of two schemas", "npm", "zod", []string{"ZodType.or", "ZodUnion", "union"}, nil, ""},
	{"npm-zod-default", "fill in a value when the field is missing", "npm", "zod", []string{"ZodType.default"}, nil, ""},
	{"npm-zod-transform", "change the parsed value into another shape after validation", "npm", "zod", []string{"ZodType.transform", "ZodType.pipe"}, nil, ""},
	{"npm-zod-strict", "reject objects that have keys the schema does not define", "npm", "zod", []string{"ZodObject.strict"}, nil, ""},
	// npm: chalk
	{"npm-chalk-support", "find out whether the terminal can show colors", "npm", "chalk", []string{"supportsColor", "ColorSupport", "ColorSupportLevel"}, []string{"supportsColor"}, ""},
	{"npm-chalk-256", "use one of the 256 terminal colors", "npm", "chalk", []string{"ChalkInstance.ansi256", "ChalkInstance.bgAnsi256"}, nil, ""},
	{"npm-chalk-underline", "underline part of a log message", "npm", "chalk", []string{"ChalkInstance.underline"}, nil, ""},
	// npm: nanoid
	{"npm-nanoid-basic", "generate a short url-safe random id", "npm", "nanoid", []string{"nanoid"}, nil, ""},
	{"npm-nanoid-random", "plug my own random bytes generator into id generation", "npm", "nanoid", []string{"customRandom"}, nil, ""},
	// npm: p-retry / p-limit
	{"npm-pretry-log", "log every failed attempt before the next retry", "npm", "p-retry", []string{"Options", "FailedAttemptError"}, nil, ""},
	{"npm-plimit", "run at most three promises at the same time", "npm", "p-limit", []string{"pLimit"}, nil, ""},
	{"npm-plimit-pending", "how many queued promises have not started yet", "npm", "p-limit", []string{"LimitFunction"}, nil, ""},
	// npm: dayjs
	{"npm-dayjs-locale", "format dates in french", "npm", "dayjs", []string{"dayjs.locale"}, nil, ""},
	{"npm-dayjs-is", "check whether a value is a dayjs object", "npm", "dayjs", []string{"dayjs.isDayjs"}, nil, ""},
	// npm: ky
	{"npm-ky-prefix", "set a base url for every request", "npm", "ky", []string{"Options", "NormalizedOptions.prefixUrl"}, []string{"prefixUrl"}, ""},
	{"npm-ky-create", "make a client instance with default headers", "npm", "ky", []string{"ky", "KyInstance"}, []string{"ky.create(defaultOptions)", "ky.extend(defaultOptions)"}, ""},
	{"npm-ky-beforeretry", "run code before a failed request is retried", "npm", "ky", []string{"BeforeRetryHook", "BeforeRetryState"}, []string{"hooks.beforeRetry"}, ""},
	{"npm-ky-nothrow", "do not throw for 404 and 500 responses", "npm", "ky", []string{"HTTPError"}, []string{"throwHttpErrors"}, ""},
	{"npm-ky-timeout", "give up on a request that takes too long", "npm", "ky", []string{"TimeoutError"}, []string{"timeout"}, ""},
	// npm: express (no declarations today)
	{"npm-express-static", "serve a folder of static files", "npm", "express", []string{"static", "express.static"}, nil, GapJSOnly},
	{"npm-express-router", "split my routes into a separate module", "npm", "express", []string{"Router", "express.Router"}, nil, GapJSOnly},
	{"npm-express-json", "parse json request bodies", "npm", "express", []string{"json", "express.json"}, nil, GapJSOnly},
	{"npm-express-send", "send a json response with a status code", "npm", "express", []string{"res.json", "response.json", "res.status"}, nil, GapJSOnly},
	// npm: lodash (no declarations today)
	{"npm-lodash-clone", "deep copy an object with nested arrays", "npm", "lodash", []string{"cloneDeep"}, nil, GapJSOnly},
	{"npm-lodash-debounce", "only call a function after the user stops typing", "npm", "lodash", []string{"debounce"}, nil, GapJSOnly},
	{"npm-lodash-uniq", "remove duplicate values from an array", "npm", "lodash", []string{"uniq", "uniqBy"}, nil, GapJSOnly},
	{"npm-lodash-get", "read a nested property safely with a fallback", "npm", "lodash", []string{"get"}, nil, GapJSOnly},
	// npm: named
	{"npm-named-email", "z.string().email()", "npm", "zod", []string{"ZodString.email"}, nil, ""},
	{"npm-named-required", "requiredOption", "npm", "commander", []string{"Command.requiredOption"}, nil, ""},
	{"npm-named-safeparse", "difference between parse and safeParse", "npm", "zod", []string{"ZodType.safeParse"}, nil, ""},

	// Python: requests
	{"py-timeout", "stop waiting for a server that never answers", "python", "requests", []string{"requests.api.request", "requests.sessions.Session.request", "requests.adapters.HTTPAdapter.send"}, nil, ""},
	{"py-basic-auth", "send a user name and password with the request", "python", "requests", []string{"requests.auth.HTTPBasicAuth"}, nil, ""},
	{"py-stream", "download a big file in pieces without holding it in memory", "python", "requests", []string{"requests.models.Response.iter_content"}, nil, ""},
	{"py-json-body", "read the response body as a python dict", "python", "requests", []string{"requests.models.Response.json"}, nil, ""},
	{"py-cookies", "read the cookies the server set", "python", "requests", []string{"requests.cookies.RequestsCookieJar", "requests.models.Response"}, nil, ""},
	// Python: click
	{"py-click-path", "argument that must be an existing file", "python", "click", []string{"click.types.Path", "click.types.File"}, nil, ""},
	{"py-click-confirm", "ask the user to confirm before going on", "python", "click", []string{"click.termui.confirm", "click.decorators.confirmation_option"}, nil, ""},
	{"py-click-progress", "show a progress bar while iterating", "python", "click", []string{"click.termui.progressbar"}, nil, ""},
	{"py-click-color", "print colored text from a click command", "python", "click", []string{"click.termui.secho", "click.termui.style"}, nil, ""},
	{"py-click-choice", "restrict an option to a fixed list of values", "python", "click", []string{"click.types.Choice"}, nil, ""},
	{"py-click-group", "put several commands under one program", "python", "click", []string{"click.decorators.group", "click.core.Group", "click.core.Group.add_command"}, nil, ""},
	{"py-click-echo", "print output that works with pipes and unicode", "python", "click", []string{"click.utils.echo"}, nil, ""},
	// Python: tenacity
	{"py-ten-random", "wait a random time between attempts", "python", "tenacity", []string{"tenacity.wait.wait_random", "tenacity.wait.wait_random_exponential"}, nil, ""},
	{"py-ten-result", "retry when the function returns None", "python", "tenacity", []string{"tenacity.retry.retry_if_result"}, nil, ""},
	{"py-ten-delay", "stop retrying after ten seconds in total", "python", "tenacity", []string{"tenacity.stop.stop_after_delay"}, nil, ""},
	{"py-ten-log", "log a message before sleeping between attempts", "python", "tenacity", []string{"tenacity.before_sleep.before_sleep_log"}, nil, ""},
	{"py-ten-async", "retry an async coroutine", "python", "tenacity", []string{"tenacity.asyncio.AsyncRetrying", "tenacity.retry"}, nil, ""},
	// Python: dateutil
	{"py-du-parse", "parse a date string in almost any format", "python", "python-dateutil", []string{"dateutil.parser.parse", "dateutil.parser._parser.parse", "dateutil.parser._parser.parser.parse"}, nil, GapPyReexport},
	{"py-du-gettz", "time zone object from a name like Europe/Paris", "python", "python-dateutil", []string{"dateutil.tz.gettz", "dateutil.tz.tz.gettz", "dateutil.zoneinfo.gettz"}, nil, GapPyReexport},
	{"py-du-easter", "date of easter sunday in a given year", "python", "python-dateutil", []string{"dateutil.easter.easter"}, nil, ""},
	{"py-du-between", "how many months and days lie between two dates", "python", "python-dateutil", []string{"dateutil.relativedelta.relativedelta"}, nil, ""},
	// Python: attrs
	{"py-attrs-frozen", "make instances of my class immutable", "python", "attrs", []string{"attrs.frozen", "attr.frozen", "attr.s", "attrs.define"}, nil, GapPyReexport},
	{"py-attrs-asdict", "turn an instance into a dictionary", "python", "attrs", []string{"attrs.asdict", "attr.asdict"}, nil, GapPyReexport},
	{"py-attrs-in", "check a field's value is one of a set of choices", "python", "attrs", []string{"attr.validators.in_"}, nil, ""},
	{"py-attrs-none", "use the default when None is passed", "python", "attrs", []string{"attr.converters.default_if_none"}, nil, ""},
	{"py-attrs-regex", "validate a string field against a regular expression", "python", "attrs", []string{"attr.validators.matches_re"}, nil, ""},
	// Python: httpx (re-exports from private modules today)
	{"py-httpx-async", "make http requests with async and await", "python", "httpx", []string{"httpx.AsyncClient"}, nil, GapPyReexport},
	{"py-httpx-timeout", "separate connect and read timeouts", "python", "httpx", []string{"httpx.Timeout"}, nil, GapPyReexport},
	{"py-httpx-mock", "fake responses in tests without a network", "python", "httpx", []string{"httpx.MockTransport"}, nil, GapPyReexport},
	{"py-httpx-raise", "raise when the response is a 4xx or 5xx", "python", "httpx", []string{"httpx.Response.raise_for_status"}, nil, GapPyReexport},
	// Python: rich
	{"py-rich-table", "show a table with columns in the terminal", "python", "rich", []string{"rich.table.Table", "rich.table.Table.add_column", "rich.table.Table.add_row"}, nil, ""},
	{"py-rich-track", "progress bar for a for loop", "python", "rich", []string{"rich.progress.track", "rich.progress.Progress"}, nil, ""},
	{"py-rich-syntax", "highlight source code when printing it", "python", "rich", []string{"rich.syntax.Syntax"}, nil, ""},
	{"py-rich-md", "render a markdown file in the console", "python", "rich", []string{"rich.markdown.Markdown"}, nil, ""},
	{"py-rich-spinner", "show a spinner while something is running", "python", "rich", []string{"rich.console.Console.status", "rich.status.Status", "rich.spinner.Spinner"}, nil, ""},
	{"py-rich-tree", "print a hierarchy like a directory tree", "python", "rich", []string{"rich.tree.Tree"}, nil, ""},
	{"py-rich-tb", "prettier tracebacks for uncaught exceptions", "python", "rich", []string{"rich.traceback.install"}, nil, ""},
	{"py-rich-prompt", "ask for input with a default answer", "python", "rich", []string{"rich.prompt.Prompt", "rich.prompt.PromptBase.ask"}, nil, ""},
	{"py-rich-panel", "draw a box with a border around some text", "python", "rich", []string{"rich.panel.Panel"}, nil, ""},
	// Python: named
	{"py-named-raise", "raise_for_status", "python", "requests", []string{"requests.models.Response.raise_for_status"}, nil, ""},
	{"py-named-relativedelta", "dateutil.relativedelta", "python", "python-dateutil", []string{"dateutil.relativedelta.relativedelta"}, nil, ""},
	{"py-named-console", "rich Console.print", "python", "rich", []string{"rich.console.Console.print"}, nil, ""},

	// Rust: anyhow
	{"rs-msg", "create an error from a plain string message", "rust", "anyhow", []string{"anyhow", "Error::msg"}, nil, ""},
	{"rs-ensure", "return an error when a condition does not hold", "rust", "anyhow", []string{"ensure"}, nil, GapRustMacro},
	{"rs-root", "find the innermost cause of an error", "rust", "anyhow", []string{"Error::root_cause"}, nil, ""},
	{"rs-chain", "walk through all the causes of an error", "rust", "anyhow", []string{"Error::chain", "Chain"}, nil, ""},
	// Rust: serde
	{"rs-de-custom", "implement Deserialize by hand for my type", "rust", "serde", []string{"de::Deserialize", "de::Deserialize::deserialize", "de::Visitor"}, nil, ""},
	{"rs-ser-seq", "serialize a list one element at a time", "rust", "serde", []string{"ser::Serializer::serialize_seq", "ser::SerializeSeq"}, nil, ""},
	{"rs-de-error", "make an error with my own message inside a deserializer", "rust", "serde", []string{"de::Error::custom", "de::Error"}, nil, GapRustMacro},
	{"rs-owned", "trait bound for a type that can be deserialized without borrowing", "rust", "serde", []string{"de::DeserializeOwned"}, nil, ""},
	// Rust: thiserror
	{"rs-te-display", "derive an error enum with a message for each variant", "rust", "thiserror", []string{"thiserror"}, nil, ""},
	// Rust: once_cell
	{"rs-unsync-lazy", "lazy value in single threaded code", "rust", "once_cell", []string{"unsync::Lazy"}, nil, ""},
	{"rs-cell-set", "set a value once and get an error if it was already set", "rust", "once_cell", []string{"sync::OnceCell::set", "unsync::OnceCell::set", "sync::OnceCell::try_insert"}, nil, ""},
	{"rs-cell-tryinit", "initialize once with a function that can fail", "rust", "once_cell", []string{"sync::OnceCell::get_or_try_init", "unsync::OnceCell::get_or_try_init"}, nil, ""},
	// Rust: itertools
	{"rs-product", "every combination of items from two iterators", "rust", "itertools", []string{"Itertools::cartesian_product", "iproduct", "Itertools::multi_cartesian_product"}, nil, ""},
	{"rs-unique", "drop repeated items from an iterator", "rust", "itertools", []string{"Itertools::unique", "Itertools::unique_by", "Itertools::dedup"}, nil, ""},
	{"rs-sorted", "iterate over items in sorted order", "rust", "itertools", []string{"Itertools::sorted", "Itertools::sorted_by", "Itertools::sorted_by_key"}, nil, ""},
	{"rs-interleave", "alternate the items of two iterators", "rust", "itertools", []string{"Itertools::interleave", "Itertools::interleave_shortest"}, nil, ""},
	{"rs-minmax", "smallest and largest element in one pass", "rust", "itertools", []string{"Itertools::minmax", "Itertools::minmax_by_key"}, nil, ""},
	{"rs-counts", "count how many times each item occurs", "rust", "itertools", []string{"Itertools::counts", "Itertools::counts_by"}, nil, ""},
	{"rs-windows", "overlapping pairs of neighbouring items", "rust", "itertools", []string{"Itertools::tuple_windows", "Itertools::circular_tuple_windows"}, nil, ""},
	// Rust: log
	{"rs-log-warn", "log a warning", "rust", "log", []string{"warn"}, nil, ""},
	{"rs-log-level", "change the maximum log level at runtime", "rust", "log", []string{"set_max_level", "LevelFilter"}, nil, ""},
	{"rs-log-impl", "write my own logger implementation", "rust", "log", []string{"Log", "set_logger", "set_boxed_logger"}, nil, ""},
	{"rs-log-enabled", "skip building an expensive debug message when debug logging is off", "rust", "log", []string{"log_enabled", "Log::enabled"}, nil, ""},
	// Rust: hex
	{"rs-hex-encode", "turn bytes into a hex string", "rust", "hex", []string{"encode", "ToHex", "ToHex::encode_hex"}, nil, ""},
	{"rs-hex-array", "decode hex into a fixed size byte array", "rust", "hex", []string{"decode_to_slice", "FromHex", "FromHex::from_hex"}, nil, ""},
	{"rs-hex-upper", "hex output in upper case letters", "rust", "hex", []string{"encode_upper", "ToHex::encode_hex_upper"}, nil, ""},
	// Rust: tokio (core items inside macros today)
	{"rs-tokio-spawn", "run a task in the background", "rust", "tokio", []string{"spawn", "task::spawn"}, nil, GapRustMacro},
	{"rs-tokio-sleep", "wait for one second without blocking the thread", "rust", "tokio", []string{"time::sleep", "sleep"}, nil, GapRustMacro},
	{"rs-tokio-select", "wait on several futures and act on whichever finishes first", "rust", "tokio", []string{"select"}, nil, GapRustMacro},
	{"rs-tokio-main", "make my main function async", "rust", "tokio", []string{"main"}, nil, GapRustMacro},
	{"rs-tokio-mpsc", "send messages between tasks through a channel", "rust", "tokio", []string{"sync::mpsc::channel", "mpsc::channel"}, nil, GapRustMacro},
	{"rs-tokio-read", "read a file to a string asynchronously", "rust", "tokio", []string{"fs::read_to_string", "read_to_string"}, nil, GapRustMacro},
	// Rust: named
	{"rs-named-context", "anyhow::Context", "rust", "anyhow", []string{"Context"}, nil, ""},
	{"rs-named-lazy", "once_cell::sync::Lazy", "rust", "once_cell", []string{"sync::Lazy"}, nil, ""},
	{"rs-named-join", "itertools join", "rust", "itertools", []string{"Itertools::join"}, nil, ""},

	// Swift
	{"sw-default", "how many attempts does the default retry policy make", "swift", "swift-retry", []string{"RetryPolicy.default", "RetryPolicy.maxAttempts", "RetryPolicy"}, nil, ""},
	{"sw-constant", "wait the same delay between every attempt", "swift", "swift-retry", []string{"Backoff.constant"}, nil, ""},
	{"sw-reset", "close the circuit again by hand after an outage", "swift", "swift-retry", []string{"CircuitBreaker.reset"}, nil, ""},
	{"sw-open", "what is thrown when calls are refused because the service kept failing", "swift", "swift-retry", []string{"CircuitOpenError"}, nil, ""},
	{"sw-errors", "see the error of every failed attempt", "swift", "swift-retry", []string{"RetryError.errors", "RetryError"}, nil, ""},
	{"sw-timeout-err", "error thrown when my operation took too long", "swift", "swift-retry", []string{"TimeoutError"}, nil, ""},
	{"sw-state", "check whether the breaker is currently closed", "swift", "swift-retry", []string{"CircuitBreaker.state", "CircuitBreaker.State"}, nil, ""},
	{"sw-filter", "a retry policy that only retries network errors", "swift", "swift-retry", []string{"FilteredPolicy", "RetryPredicate"}, nil, ""},
	{"sw-named", "Backoff.exponential", "swift", "swift-retry", []string{"Backoff.exponential"}, nil, ""},

	// Go standard library (evaluated once the stdlib is indexed)
	{"gostd-exec", "run an external program and capture its output", "go", "stdlib", []string{"exec.Command", "exec.Cmd.Output", "exec.Cmd.CombinedOutput"}, nil, GapStdlib},
	{"gostd-timeout", "cancel an operation after five seconds", "go", "stdlib", []string{"context.WithTimeout", "context.WithDeadline"}, nil, GapStdlib},
	{"gostd-readfile", "read a whole file into memory", "go", "stdlib", []string{"os.ReadFile", "io.ReadAll"}, nil, GapStdlib},
	{"gostd-sort", "sort a slice of structs by one field", "go", "stdlib", []string{"slices.SortFunc", "sort.Slice", "slices.SortStableFunc", "sort.SliceStable"}, nil, GapStdlib},
	{"gostd-json", "decode a json document into a struct", "go", "stdlib", []string{"json.Unmarshal", "json.Decoder.Decode", "json.NewDecoder"}, nil, GapStdlib},
	{"gostd-time", "format a time as RFC 3339", "go", "stdlib", []string{"time.Time.Format", "time.RFC3339"}, nil, GapStdlib},
	{"gostd-join", "join path elements with the right separator", "go", "stdlib", []string{"filepath.Join", "path.Join"}, nil, GapStdlib},
	{"gostd-http", "start a web server with one handler function", "go", "stdlib", []string{"http.HandleFunc", "http.ListenAndServe"}, nil, GapStdlib},
	{"gostd-mutex", "protect a map used from several goroutines", "go", "stdlib", []string{"sync.Mutex", "sync.RWMutex", "sync.Map"}, nil, GapStdlib},
	{"gostd-atoi", "convert a string to an int", "go", "stdlib", []string{"strconv.Atoi", "strconv.ParseInt"}, nil, GapStdlib},
	{"gostd-wrap", "check whether an error wraps a particular error", "go", "stdlib", []string{"errors.Is", "errors.As"}, nil, GapStdlib},
	{"gostd-lines", "read a file line by line", "go", "stdlib", []string{"bufio.Scanner", "bufio.NewScanner", "bufio.Scanner.Scan"}, nil, GapStdlib},
	{"gostd-named", "context.WithTimeout", "go", "stdlib", []string{"context.WithTimeout"}, nil, GapStdlib},
	// Python standard library
	{"pystd-findall", "find every match of a regular expression in a string", "python", "stdlib", []string{"re.findall", "re.finditer", "re.Pattern.findall"}, nil, GapStdlib},
	{"pystd-items", "loop over the keys and values of a dict", "python", "stdlib", []string{"dict.items"}, nil, GapStdlib},
	{"pystd-split", "split a string on whitespace", "python", "stdlib", []string{"str.split"}, nil, GapStdlib},
	{"pystd-run", "run a shell command and get its output", "python", "stdlib", []string{"subprocess.run", "subprocess.check_output"}, nil, GapStdlib},
	{"pystd-argparse", "parse command line arguments", "python", "stdlib", []string{"argparse.ArgumentParser", "argparse.ArgumentParser.add_argument"}, nil, GapStdlib},
	{"pystd-json", "load a json file into a dict", "python", "stdlib", []string{"json.load", "json.loads"}, nil, GapStdlib},
	{"pystd-counter", "count how often each word occurs", "python", "stdlib", []string{"collections.Counter"}, nil, GapStdlib},
	{"pystd-defaultdict", "dictionary that creates missing keys with a default", "python", "stdlib", []string{"collections.defaultdict", "dict.setdefault"}, nil, GapStdlib},
	{"pystd-walk", "go through every file under a directory", "python", "stdlib", []string{"os.walk", "pathlib.Path.rglob", "pathlib.Path.walk"}, nil, GapStdlib},
	{"pystd-now", "current date and time in UTC", "python", "stdlib", []string{"datetime.datetime.now", "datetime.datetime.utcnow", "datetime.timezone"}, nil, GapStdlib},
	{"pystd-cache", "remember the results of an expensive function", "python", "stdlib", []string{"functools.lru_cache", "functools.cache"}, nil, GapStdlib},
	{"pystd-tmp", "temporary directory deleted when I am done", "python", "stdlib", []string{"tempfile.TemporaryDirectory"}, nil, GapStdlib},
	{"pystd-named", "re.findall", "python", "stdlib", []string{"re.findall"}, nil, GapStdlib},
	// Rust standard library (rust-src)
	{"rsstd-named", "std::collections::HashMap", "rust", "stdlib", []string{"collections::HashMap", "HashMap"}, nil, GapStdlib},
}
