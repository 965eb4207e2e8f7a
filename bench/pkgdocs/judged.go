// Package pkgdocs is the quality and speed benchmark of the package docs
// (`gno packages`): a judged set of questions a developer asks about the
// dependencies of pkgtest.Judged, the peer's approach (the "MCP package
// docs" server: Fuse.js fuzzy search over one package's README sections)
// re-implemented to be measured on the same set, and the scoring.
package pkgdocs

// Question is one judged question: the package that answers it and the
// API items that do (any one of them is the answer; the first is the
// item a developer would be pointed to).
type Question struct {
	ID        string
	Query     string
	Ecosystem string
	// Package is the name as the ecosystem spells it.
	Package string
	Answers []string
}

// Judged is the set: 66 questions (Go 20, npm 17, Python 14, Rust 10,
// Swift 5) over the 24 packages of pkgtest.Judged,
// written as a developer would ask them (not in the docs' words), judged
// by the API item that answers each (checked by `gnopkgbench check`: every
// answer is an extracted symbol).
var Judged = []Question{
	// Go
	{"go-persistent", "how do I make a flag every subcommand inherits", "go", "github.com/spf13/cobra", []string{"Command.PersistentFlags"}},
	{"go-exactargs", "require exactly two positional arguments for a command", "go", "github.com/spf13/cobra", []string{"ExactArgs", "RangeArgs"}},
	{"go-required-flag", "make a command line flag mandatory", "go", "github.com/spf13/cobra", []string{"Command.MarkFlagRequired", "MarkFlagRequired", "Command.MarkPersistentFlagRequired"}},
	{"go-gen-markdown", "generate markdown documentation for all my CLI commands", "go", "github.com/spf13/cobra", []string{"doc.GenMarkdownTree", "doc.GenMarkdownTreeCustom"}},
	{"go-exclusive-flags", "two flags that cannot be used together", "go", "github.com/spf13/cobra", []string{"Command.MarkFlagsMutuallyExclusive"}},
	{"go-shorthand", "define a string flag with a one-letter shorthand", "go", "github.com/spf13/pflag", []string{"StringP", "StringVarP", "FlagSet.StringP", "FlagSet.StringVarP"}},
	{"go-uuid-string", "generate a random UUID as a string", "go", "github.com/google/uuid", []string{"NewString", "New", "NewRandom"}},
	{"go-uuid-parse", "parse a UUID from text and check it is valid", "go", "github.com/google/uuid", []string{"Parse", "Validate", "MustParse"}},
	{"go-uuid-v7", "time ordered UUIDs that sort by creation time", "go", "github.com/google/uuid", []string{"NewV7"}},
	{"go-errgroup", "run goroutines and cancel the rest when one returns an error", "go", "golang.org/x/sync", []string{"errgroup.WithContext", "errgroup.Group"}},
	{"go-errgroup-limit", "limit how many goroutines an errgroup runs at once", "go", "golang.org/x/sync", []string{"errgroup.Group.SetLimit"}},
	{"go-singleflight", "collapse duplicate concurrent calls for the same key into one", "go", "golang.org/x/sync", []string{"singleflight.Group.Do", "singleflight.Group"}},
	{"go-semaphore", "weighted semaphore that waits with a context", "go", "golang.org/x/sync", []string{"semaphore.Weighted.Acquire", "semaphore.NewWeighted", "semaphore.Weighted"}},
	{"go-toml-file", "load a TOML config file into a struct", "go", "github.com/BurntSushi/toml", []string{"DecodeFile", "Decode", "Unmarshal"}},
	{"go-mux-vars", "read path parameters like {id} inside a handler", "go", "github.com/gorilla/mux", []string{"Vars"}},
	{"go-mux-methods", "only match GET and POST requests on a route", "go", "github.com/gorilla/mux", []string{"Route.Methods", "Router.Methods"}},
	{"go-mux-subrouter", "group routes under a common path prefix", "go", "github.com/gorilla/mux", []string{"Route.Subrouter", "Router.PathPrefix", "Route.PathPrefix"}},
	{"go-backoff-retry", "retry a function with exponential backoff", "go", "github.com/cenkalti/backoff/v4", []string{"Retry", "RetryNotify", "NewExponentialBackOff"}},
	{"go-backoff-permanent", "stop retrying on an error that will never succeed", "go", "github.com/cenkalti/backoff/v4", []string{"Permanent", "PermanentError"}},
	{"go-backoff-max", "give up after a fixed number of retries", "go", "github.com/cenkalti/backoff/v4", []string{"WithMaxRetries"}},

	// npm
	{"npm-required-option", "add an option the user must always pass", "npm", "commander", []string{"Command.requiredOption"}},
	{"npm-unknown-option", "accept unknown options instead of failing", "npm", "commander", []string{"Command.allowUnknownOption"}},
	{"npm-parse-async", "my action handlers are async, how do I parse and wait for them", "npm", "commander", []string{"Command.parseAsync"}},
	{"npm-subcommand", "define a nested subcommand with its own action", "npm", "commander", []string{"Command.command", "Command.addCommand"}},
	{"npm-zod-email", "validate that a string is an email address", "npm", "zod", []string{"ZodString.email"}},
	{"npm-zod-optional", "make a field of a schema optional", "npm", "zod", []string{"ZodType.optional", "ZodObject.partial"}},
	{"npm-zod-safeparse", "validate data without throwing an exception", "npm", "zod", []string{"ZodType.safeParse", "ZodType.safeParseAsync"}},
	{"npm-zod-extend", "add fields to an existing object schema", "npm", "zod", []string{"ZodObject.extend", "ZodObject.merge"}},
	{"npm-zod-infer", "get the TypeScript type of a schema", "npm", "zod", []string{"infer"}},
	{"npm-zod-refine", "custom validation rule with my own error message", "npm", "zod", []string{"ZodType.refine", "ZodType.superRefine"}},
	{"npm-chalk-bold", "print bold red text in the terminal", "npm", "chalk", []string{"ChalkInstance.bold", "ChalkInstance.red"}},
	{"npm-chalk-hex", "color terminal output with a hex color code", "npm", "chalk", []string{"ChalkInstance.hex", "ChalkInstance.bgHex"}},
	{"npm-nanoid-alphabet", "short unique ids from my own set of characters", "npm", "nanoid", []string{"customAlphabet"}},
	{"npm-pretry", "retry a failing promise a few times", "npm", "p-retry", []string{"pRetry"}},
	{"npm-pretry-abort", "stop retrying right away for some errors", "npm", "p-retry", []string{"AbortError"}},
	{"npm-dayjs-plugin", "load a plugin into dayjs", "npm", "dayjs", []string{"dayjs.extend"}},
	{"npm-dayjs-unix", "create a date from a unix timestamp in seconds", "npm", "dayjs", []string{"dayjs.unix"}},

	// Python
	{"py-session", "reuse connections and cookies across many HTTP requests", "python", "requests", []string{"requests.Session", "requests.session"}},
	{"py-adapter-retries", "mount an adapter with retries on a session", "python", "requests", []string{"requests.adapters.HTTPAdapter", "requests.Session.mount"}},
	{"py-raise-status", "raise an exception when the server answers 404 or 500", "python", "requests", []string{"requests.Response.raise_for_status"}},
	{"py-post-json", "send a JSON body in a POST request", "python", "requests", []string{"requests.post", "requests.Session.post"}},
	{"py-click-context", "share an object between a click group and its commands", "python", "click", []string{"click.pass_context", "click.pass_obj", "click.Context.ensure_object", "click.make_pass_decorator"}},
	{"py-click-password", "prompt for a password without echoing it", "python", "click", []string{"click.password_option", "click.prompt"}},
	{"py-click-version", "add a --version flag to a click program", "python", "click", []string{"click.version_option"}},
	{"py-tenacity-exp", "wait exponentially longer between retries", "python", "tenacity", []string{"tenacity.wait_exponential", "tenacity.wait_exponential_jitter", "tenacity.wait_random_exponential"}},
	{"py-tenacity-stop", "give up after five attempts", "python", "tenacity", []string{"tenacity.stop_after_attempt"}},
	{"py-tenacity-exc", "retry only when a particular exception type is raised", "python", "tenacity", []string{"tenacity.retry_if_exception_type"}},
	{"py-relativedelta", "add one month to a date without overflowing the day", "python", "python-dateutil", []string{"dateutil.relativedelta.relativedelta"}},
	{"py-isoparse", "parse an ISO 8601 timestamp string", "python", "python-dateutil", []string{"dateutil.parser.isoparse", "dateutil.parser.isoparser.isoparse", "dateutil.parser.isoparser"}},
	{"py-rrule", "recurring events like every second Tuesday of the month", "python", "python-dateutil", []string{"dateutil.rrule.rrule", "dateutil.rrule.rruleset"}},
	{"py-attrs-instance", "validate that an attribute is an int", "python", "attrs", []string{"attr.validators.instance_of"}},

	// Rust
	{"rs-context", "attach a message to an error while propagating it with ?", "rust", "anyhow", []string{"Context::context", "Context::with_context", "Context"}},
	{"rs-bail", "return early with a formatted error", "rust", "anyhow", []string{"bail", "anyhow"}},
	{"rs-downcast", "check whether an error is my own error type", "rust", "anyhow", []string{"Error::downcast_ref", "Error::downcast", "Error::is"}},
	{"rs-lazy", "a global value computed on first use", "rust", "once_cell", []string{"sync::Lazy", "unsync::Lazy"}},
	{"rs-oncecell", "initialize a value once from several threads", "rust", "once_cell", []string{"sync::OnceCell::get_or_init", "sync::OnceCell"}},
	{"rs-chunk-by", "group consecutive elements that share a key", "rust", "itertools", []string{"Itertools::chunk_by", "Itertools::group_by"}},
	{"rs-combinations", "all pairs of elements from an iterator", "rust", "itertools", []string{"Itertools::tuple_combinations", "Itertools::combinations"}},
	{"rs-join", "join iterator items into a string with a separator", "rust", "itertools", []string{"Itertools::join", "Itertools::format"}},
	{"rs-serialize-struct", "write a Serialize implementation by hand for my struct", "rust", "serde", []string{"ser::Serializer::serialize_struct", "ser::Serialize"}},
	{"rs-map-visitor", "deserialize a map with a custom visitor", "rust", "serde", []string{"de::Visitor", "de::MapAccess", "de::Visitor::visit_map"}},

	// Swift
	{"sw-backoff", "retry an async call with exponential backoff", "swift", "swift-retry", []string{"retry", "Backoff.exponential", "Backoff"}},
	{"sw-breaker", "stop calling a failing service for a while", "swift", "swift-retry", []string{"CircuitBreaker"}},
	{"sw-predicate", "only retry some kinds of errors", "swift", "swift-retry", []string{"RetryPredicate", "RetryPredicate.shouldRetry"}},
	{"sw-timeout", "give up on an async task after a few seconds", "swift", "swift-retry", []string{"withTimeout"}},
	{"sw-error", "what error do I get when every attempt failed", "swift", "swift-retry", []string{"RetryError"}},
}
